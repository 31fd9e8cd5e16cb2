# frozen_string_literal: true

# The gem's own folders at the top of a folder store, which the sandbox makes before
# a run and covers for it (crates/base/src/removing.rs): not what a run left.
module GemsFolders
  NAMES = %w[.ruby_llm_removing .ruby_llm_index].freeze

  # Whether +path+, relative to the store's folder, is one of them or inside one.
  def self.include?(path)
    NAMES.include?(path.split('/').first)
  end
end
