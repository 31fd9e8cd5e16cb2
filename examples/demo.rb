# frozen_string_literal: true

# Puts the sample documents into a Directory store and shows what a chat gains.
require 'ruby_llm/file_store'
require 'tmpdir'

# The demo's steps, each printing one section.
class StoreDemo
  FIXTURES = File.expand_path('../spec/fixtures', __dir__)
  QUESTIONS = 10
  # The flat OpenDocument sources the document fixtures were made from.
  SOURCES = /\.fod[tsp]\z/

  # The native document converters, registered as an app would in config.file_converters.
  CONFIG = Struct.new(:file_converters).new(
    RubyLLM.file_store.converter.then do |converter|
      office = RubyLLM::FileStore::Converters::Office::TYPES.to_h { |type| [type, converter.office] }
      { 'application/pdf' => converter.pdf, 'text/html' => converter.html }.merge(office)
    end
  )

  def initialize(store)
    @store = store
  end

  def run
    fill
    show_files
    show_texts
    show_tools
    show_resending
  end

  private

  attr_reader :store

  def section(title)
    puts "\n== #{title}"
  end

  def one_line(file)
    "#{file.path} (#{file.content_type}, #{file.human_size}) is in this chat's files"
  end

  def fill
    Dir.glob('**/*', base: FIXTURES).sort.each do |name|
      next if File.directory?(File.join(FIXTURES, name)) || name.match?(SOURCES)

      File.open(File.join(FIXTURES, name), 'rb') { |io| store.write(name, io) }
    end
  end

  def show_files
    section "The store in #{store.local_root}"
    store.each do |file|
      puts format('  %-24<path>s %-28<type>s %<size>9s', path: file.path, type: file.content_type[0, 28],
                                                         size: file.human_size)
    end
  end

  def show_texts
    section 'What store.text reads'
    store.each do |file|
      text = store.text(file.path, config: CONFIG)
      shown = if text
                "#{text.lines.first.to_s.strip[0, 60]}... (#{text.length} characters)"
              else
                'no text: the model gets the file itself, or reads it with code'
              end
      puts "  #{file.path}: #{shown}"
    end
  end

  # The tools as a model calls them: find a line, read around it, change it.
  def show_tools
    section 'The model at work, through its tools'
    tools = RubyLLM::FileStore::Tools
    call(tools::SearchFiles, pattern: 'terminat', path: 'contract-v2.md', ignore_case: true)
    call(tools::SearchFiles, pattern: 'remote work', ignore_case: true)
    call(tools::SearchFiles, pattern: 'budget', path: 'documents', ignore_case: true)
    call(tools::ReadFile, path: 'handbook.txt', offset: 286, limit: 3)
    call(tools::EditFile, path: 'handbook.txt', old_text: 'renewed every 90 days', new_text: 'renewed every 60 days')
    call(tools::EditFile, path: 'revenue.csv', old_text: 'north', new_text: 'North')
    call(tools::WriteFile, path: 'notes/answer.md', content: "Remote work approval is renewed every 60 days.\n")
    call(tools::ListFiles, path: 'notes')
  end

  def call(tool, **arguments)
    puts "\n  #{tool.name.split('::').last} #{arguments}"
    result = tool.new(store, config: CONFIG).call(**arguments)
    puts result.to_s.lines.map { |line| "    #{line}" }.join
  end

  def show_resending
    section "A #{QUESTIONS}-question chat with every sample attached to the first question"
    # Providers take attachments base64-encoded inside the JSON body.
    attached = store.sum { |file| (file.byte_size + 2) / 3 * 4 }
    lines = store.sum { |file| one_line(file).bytesize + 1 }
    without = QUESTIONS * attached
    with = attached + ((QUESTIONS - 1) * lines)
    puts "  without a store, every request resends them: #{QUESTIONS} x #{attached} = #{without} bytes"
    puts "  with a store, in full once, then a line each: #{attached} + #{QUESTIONS - 1} x #{lines} = #{with} bytes"
    puts format('  bytes not resent: %<percent>.1f%%', percent: 100.0 * (without - with) / without)
    show_lines
  end

  def show_lines
    puts "\n  From the second question on, the model sees lines like:"
    store.first(2).each { |file| puts "    #{one_line(file)}" }
  end
end

Dir.mktmpdir('ruby_llm_file_store_demo') { |folder| StoreDemo.new(RubyLLM.file_store.directory(folder)).run }
