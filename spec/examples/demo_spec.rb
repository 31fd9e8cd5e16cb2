# frozen_string_literal: true

require 'open3'
require 'rbconfig'

# bin/demo on the real ruby_llm (RUBY_LLM_PATH, as bin/test-ruby-llm sets it): its
# chat's requests, what each carried, their sizes and the saving, without and with
# a file store.
RSpec.describe 'bin/demo', :ruby_llm do
  root = File.expand_path('../..', __dir__)

  # The demo's output cut into its sections: { title => text }.
  def sections(output)
    output.split(/^== /).drop(1).to_h { |section| section.split("\n", 2) }
  end

  # [[question, [bytes of each request]], ...] of one section.
  def requests(section)
    section.split(/^Q: /).drop(1).map do |asked|
      [asked.lines.first.strip, asked.scan(/^  request \d+: ([\d,]+) bytes/).flatten.map { |n| n.delete(',').to_i }]
    end
  end

  def table(section)
    section.lines.grep(/^(\d|total)/).to_h do |line|
      label, without, with, smaller = line.split
      [label, [without, with].map { |n| n.delete(',').to_i } + [smaller.to_f]]
    end
  end

  it 'shows each request of a real RubyLLM::Chat, with and without the store, and the saving they measure' do
    output, status = Open3.capture2e({ 'OPENAI_API_KEY' => nil }, File.join(root, 'bin/demo'))
    expect(status).to be_success, output
    expect(output).to match(/^ruby_llm \d+\.\d+\.\d+ \(.*ruby_llm\.rb\)$/)
      .and include('A scripted OpenAI-compatible server on 127.0.0.1:')
    # The demo names the ruby_llm it loaded by its real path (../shared may be a link).
    if ENV['RUBY_LLM_PATH']
      expect(output.lines.first).to include(File.realpath(ENV.fetch('RUBY_LLM_PATH').split(':').first))
    end

    found = sections(output)
    without = requests(found.fetch('Without a file store'))
    with = requests(found.fetch('With a file store (RubyLLM::FileStore::Memory)'))
    # One request a question, and one more where the model calls a tool: the report
    # in both, a search of the files with the store.
    expect(without.map { |_, sizes| sizes.size }).to eq([1, 2, 1, 1])
    expect(with.map { |_, sizes| sizes.size }).to eq([1, 2, 2, 1])

    plain = found.fetch('Without a file store')
    stored = found.fetch('With a file store (RubyLLM::FileStore::Memory)')
    expect(plain.scan(/contract\.pdf: [\d,]+ bytes of base64/).size).to eq(5)
    expect(plain.scan('tool       result: 30,000 characters').size).to eq(3)
    expect(stored.scan(/contract\.pdf: [\d,]+ bytes of base64/).size).to eq(1)
    expect(stored.scan(%r{contract\.pdf \(application/pdf, [\d.]+ KB\) is in this chat's files}).size).to eq(5)
    expect(stored).to match(%r{result: 2,\d{3} characters: "region north .* results/sales_report-\h{8}\.txt})
      .and include('contract.pdf:266: Section 7.13. Termination.')

    sums = table(found.fetch('Bytes sent for each question, from the request bodies'))
    without.zip(with).each_with_index do |((_, plain_sizes), (_, stored_sizes)), index|
      expect(sums.fetch((index + 1).to_s).first(2)).to eq([plain_sizes.sum, stored_sizes.sum])
    end
    total_without, total_with, saving = sums.fetch('total')
    expect([total_without, total_with]).to eq([without.sum { |_, s| s.sum }, with.sum { |_, s| s.sum }])
    expect(saving).to be_within(0.05).of(100.0 * (total_without - total_with) / total_without)
    expect(saving).to be > 70
    expect(sums.values_at('2', '3', '4').map(&:last)).to all(be > 80)
  end

  it 'talks to the provider OPENAI_API_KEY names through a forwarder that records each request as sent' do
    provider = ScriptedLLMServer.start
    s = ScriptedLLMServer
    report = s.tool_call('sales_report')
    provider.script(s.text('A'), report, s.text('B'), s.text('C'), s.text('D'),
                    s.text('A'), report, s.text('B'), s.tool_call('search_files', { pattern: 'termination' }),
                    s.text('C'), s.text('D'))
    env = { 'OPENAI_API_KEY' => 'test', 'OPENAI_API_BASE' => provider.base_url, 'DEMO_MODEL' => 'gpt-4.1-mini' }
    output, status = Open3.capture2e(env, RbConfig.ruby, File.join(root, 'examples/demo.rb'))
    expect(status).to be_success, output
    expect(output).to match(%r{^OpenAI \(gpt-4\.1-mini\) through http://127\.0\.0\.1:\d+/v1})
    shown = output.scan(/^  request \d+: ([\d,]+) bytes/).flatten.map { |n| n.delete(',').to_i }
    expect(shown).to eq(provider.requests.map { |request| request[:bytes] })
    expect(provider.requests.map { |request| request[:body]['model'] }.uniq).to eq(['gpt-4.1-mini'])
  ensure
    provider&.stop
  end
end
