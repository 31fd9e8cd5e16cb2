# frozen_string_literal: true

# What the with_lock checks under Async count: one increment of a store's counter
# file inside with_lock, with a pause between its read and its write, so that a
# second fiber or thread let in meanwhile would lose one.
module LockCounts
  module_function

  def increment(store, path = 'n.txt')
    store.with_lock do
      number = store.read(path).to_i
      sleep 0.002
      store.write(path, (number + 1).to_s)
    end
  end
end
