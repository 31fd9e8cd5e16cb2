# frozen_string_literal: true

require_relative 'tidy'

module RubyLLM
  module ActiveRecord
    # Runs RubyLLM::ActiveRecord::Tidy as a job, to schedule it (once a day is plenty):
    #
    #   RubyLLM::ActiveRecord::TidyJob.perform_later
    #   RubyLLM::ActiveRecord::TidyJob.perform_later(older_than: 2 * 24 * 60 * 60)
    class TidyJob < ::ActiveJob::Base
      def perform(older_than: Tidy::DEFAULT_AGE)
        Tidy.run(older_than:)
      end
    end
  end
end
