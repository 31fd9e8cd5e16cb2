# frozen_string_literal: true

namespace :ruby_llm_file_store do
  desc 'Removes what killed processes left of chat file writes (OLDER_THAN seconds, a day by default)'
  task tidy: :environment do
    older_than = Integer(ENV.fetch('OLDER_THAN', RubyLLM::ActiveRecord::Tidy::DEFAULT_AGE))
    removed = RubyLLM::ActiveRecord::Tidy.run(older_than:)
    puts "ruby_llm_file_store:tidy removed #{removed[:blobs]} unused blobs of the store's and " \
         "#{removed[:temporary_files]} temporary files"
  end
end
