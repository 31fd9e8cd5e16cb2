# frozen_string_literal: true

require 'fileutils'
require 'json'
require 'open3'
require 'rbconfig'
require_relative 'blocks'
require_relative 'setups'
require_relative '../../examples/support/sample_pdf'

# Every ```ruby block of the README (and of docs/*.md) runs as written, each in a
# process of its own, in a fresh folder holding the files it names; its setup is
# spec/readme/setups.rb's entry for its marker. A block that needs ruby_llm runs in
# bin/test-ruby-llm, against a scripted server where it talks to a model.
RSpec.describe 'the README and docs/' do
  blocks = ReadmeBlocks.all
  timeout = 120

  # Makes the files a setup names in +folder+.
  def make_files(folder, files)
    files.each do |path, content|
      target = File.join(folder, path)
      next FileUtils.mkdir_p(target) if path.end_with?('/')

      FileUtils.mkdir_p(File.dirname(target))
      case content
      when String then File.binwrite(target, content)
      when Hash then make_file(target, content)
      end
    end
  end

  def make_file(target, content)
    return FileUtils.cp(File.join(__dir__, '..', 'fixtures', content[:fixture]), target) if content[:fixture]

    SamplePDF.write(target, content.fetch(:pdf))
  end

  def run_block(block, setup, folder, timeout)
    make_files(folder, setup.fetch(:files, {}))
    job = File.join(folder, '.readme-job.json')
    File.write(job, JSON.generate(block.to_h.merge(setup.except(:files)).merge(needs: setup.fetch(:needs, []))))
    Open3.popen2e(RbConfig.ruby, File.join(__dir__, 'runner.rb'), job, chdir: folder) do |stdin, out, wait|
      stdin.close
      reader = Thread.new { out.read }
      unless wait.join(timeout)
        Process.kill('KILL', wait.pid)
        return ["#{reader.value}\n(killed after #{timeout} s)", false]
      end
      [reader.value, wait.value.success?]
    end
  end

  it 'names each block once, and every setup names a block' do
    names = blocks.filter_map(&:name)
    expect(names.tally.select { |_, count| count > 1 }.keys).to eq([]), 'two blocks share a marker'
    expect(ReadmeSetups::SETUPS.keys - names).to eq([]), 'setups whose block is gone'
  end

  blocks.each do |block|
    setup = ReadmeSetups.for(block.name)
    needs = setup.fetch(:needs, [])
    tags = {}
    tags[:ruby_llm] = true if needs.include?('ruby_llm')
    tags[:acts_as_chat] = true if needs.include?('acts_as_chat')
    tags[:slow] = true if setup[:slow]

    it "runs #{block.label} (#{block.where})", **tags do
      skip "needs Active Record, Active Storage and sqlite3: #{ActiveStorageDB.load_error}" if
        needs.include?('rails') && !ActiveStorageDB.available?
      Dir.mktmpdir('readme_block') do |folder|
        output, ok = run_block(block, setup, folder, timeout)
        expect(ok).to be(true), "#{block.where} failed (its setup: spec/readme/setups.rb, under the name " \
                                "its <!-- example: name --> marker gives it):\n#{output}"
        expect(output.lines.last).to eq("ok\n")
      end
    end
  end
end
