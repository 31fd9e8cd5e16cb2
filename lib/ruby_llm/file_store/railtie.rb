# frozen_string_literal: true

module RubyLLM
  class FileStore
    # Installs ActsAsChat (chat/acts_as_chat.rb) after ruby_llm's own Active Record
    # initializer, which is what defines acts_as_chat, and logs the gem's events to
    # the application's log (LogSubscriber). It starts no convert worker at boot,
    # which every rake task and console would pay for: the first store each process
    # makes (a Puma or job worker forked after boot included) starts one, ahead of
    # its first conversion (Converters::Builtin.prestart_in_process).
    class Railtie < ::Rails::Railtie
      initializer 'ruby_llm_file_store.log_subscriber' do
        require_relative 'log_subscriber'
      end

      initializer 'ruby_llm_file_store.acts_as_chat', after: 'ruby_llm.active_record' do
        ActiveSupport.on_load(:active_record) { RubyLLM::FileStore::ActsAsChat.install }
      end

      # bin/rails ruby_llm_file_store:tidy (see RubyLLM::ActiveRecord::Tidy).
      rake_tasks { load File.expand_path('tasks/tidy.rake', __dir__) }
    end
  end
end
