# frozen_string_literal: true

# A fresh folder for each example that asks for one, removed after it.
module TmpDirHelper
  def self.included(base)
    base.around do |example|
      Dir.mktmpdir('ruby_llm_file_store') do |dir|
        @tmp_dir = dir
        example.run
      end
    end
  end

  attr_reader :tmp_dir
end
