# frozen_string_literal: true

# What Turbo would send to the page, recorded. `bin/rails generate ruby_llm:chat_ui`
# writes a ChatResponseJob that streams each chunk of the reply to the page
# (message.broadcast_append_chunk, which calls Turbo's broadcast_append_to) and adds
# `broadcasts_to` to Message. Turbo (turbo-rails, with Action Cable 7.2 under it) is
# not on this machine: neither in ../shared/gems nor among Debian's packages, and no gem
# server is reached. So the two methods the generated code calls are defined here, and
# record what they would broadcast instead of sending it; the generated model and job
# run as generated, and the checks read what the page would have been sent.
# Skipped where the real Turbo is loaded.
module TurboBroadcasts
  @sent = []
  @mutex = Mutex.new

  # [{ stream:, action:, target:, content: }, ...] in the order they were sent.
  def self.sent
    @mutex.synchronize { @sent.dup }
  end

  def self.record(**broadcast)
    @mutex.synchronize { @sent << broadcast }
  end

  # Turbo::Broadcastable's class method: a created record is appended to the stream.
  module ClassMethods
    def broadcasts_to(stream, inserts_by: :append, **)
      after_create_commit do
        TurboBroadcasts.record(stream: stream.call(self), action: inserts_by, target: model_name.plural,
                               content: "#{model_name.singular}_#{id}")
      end
    end
  end

  def broadcast_append_to(stream, target:, content:, **)
    TurboBroadcasts.record(stream:, action: :append, target:, content: content.to_s)
  end
end

unless defined?(Turbo::Broadcastable)
  ActiveSupport.on_load(:active_record) do
    include TurboBroadcasts
    extend TurboBroadcasts::ClassMethods
  end
end
