# frozen_string_literal: true

require 'fileutils'
require 'open3'
require 'tmpdir'

# bin/test's verdict, with each of its steps a stub (RUBY_LLM_TEST_STUBS): every sub-run
# is a row, a failing one hides none after it, and a skipped lane or one that fails
# outside its rows turns the run red and is named on the last line.
RSpec.describe 'bin/test' do
  root = File.expand_path('../..', __dir__)
  steps = %w[setup cargo-test hostile rspec test-ruby-llm test-app test-databases test-sandbox test-newer]

  around do |example|
    Dir.mktmpdir('ruby_llm_file_store_bin_test') do |dir|
      @dir = dir
      example.run
    end
  end

  def stub(name, body)
    path = File.join(@dir, 'stubs', name)
    FileUtils.mkdir_p(File.dirname(path))
    File.write(path, "#!/usr/bin/env bash\n#{body}\n")
    File.chmod(0o755, path)
  end

  # Every step passing, one RSpec line each, but those given.
  define_method(:stub_steps) do |**bodies|
    steps.each { |step| stub(step, bodies.fetch(step.tr('-', '_').to_sym, 'echo "3 examples, 0 failures"')) }
  end

  define_method(:rows_script) do |*lines|
    [". #{root}/bin/test-rows", *lines, 'rows_end'].join("\n")
  end

  define_method(:bin_test) do |path: ENV.fetch('PATH'), lint: nil|
    env = { 'RUBY_LLM_TEST_STUBS' => File.join(@dir, 'stubs'), 'RUBY_LLM_TEST_LOGS' => File.join(@dir, 'logs'),
            'RUBY_LLM_TEST_ROWS' => nil, 'RUBY_LLM_TEST_LANE' => nil, 'RUBY_LLM_TEST_LINT' => lint, 'PATH' => path }
    output, status = Open3.capture2e(env, File.join(root, 'bin/test'))
    [output, status, output.lines.map(&:chomp)]
  end

  def row(lines, name)
    lines.grep(/\A#{Regexp.escape(name)} {2,}/).first || raise("no row #{name.inspect} in:\n#{lines.join("\n")}")
  end

  it 'runs every sub-run after a failing one, and a skipped lane turns it red, each named on the last line' do
    stub_steps(
      test_ruby_llm: rows_script("run 'set A on Rails 7.2' bash -c 'echo \"2 examples, 1 failure\"; " \
                                 "echo \"rspec ./spec/a_spec.rb:7 # A fails\"; exit 1'",
                                 "run 'set B on Rails 7.2' bash -c 'echo \"4 examples, 0 failures\"'"),
      test_newer: rows_script("skipped 'Ruby 3.3 and 3.4' 'no kit of the newer stack here'")
    )
    output, status, lines = bin_test

    expect(status.exitstatus).to eq(1), output
    expect(row(lines, 'ruby_llm: set A on Rails 7.2')).to match(/ FAILED +2 examples, 1 failures /)
    expect(row(lines, 'ruby_llm: set B on Rails 7.2')).to match(/ passed +4 examples, 0 failures /)
    expect(row(lines, 'newer stack: Ruby 3.3 and 3.4')).to match(/ skipped +no kit of the newer stack here /)
    expect(row(lines, 'databases')).to match(/ passed /)
    expect(row(lines, 'async')).to match(/ absent /)
    expect(lines).to include('failed in ruby_llm: set A on Rails 7.2: rspec ./spec/a_spec.rb:7 # A fails')
    expect(lines[-2]).to eq('8 passed, 2 failed')
    expect(lines[-1]).to eq('bin/test: not passed: ruby_llm: set A on Rails 7.2 (FAILED); ' \
                            'newer stack: Ruby 3.3 and 3.4 (skipped: no kit of the newer stack here)')
    expect(output).not_to include('every suite passed')
  end

  it 'runs the real ruby_llm lane on to the next set after a failing one' do
    kit = File.expand_path('../shared/gems', root)
    skip "no ruby_llm sets in #{kit}" if Dir[File.join(kit, 'ruby_llm-*')].size < 2

    stub_steps(test_ruby_llm: "exec #{root}/bin/test-ruby-llm")
    # An rspec that fails for the first set of the kit alone.
    first = File.basename(Dir[File.join(kit, 'ruby_llm-*')].min)
    stub('fake/rspec', "case \"$RUBY_LLM_PATH\" in */#{first}*) echo '2 examples, 1 failure'; exit 1 ;; esac\n" \
                       "echo '5 examples, 0 failures'")
    output, status, lines = bin_test(path: "#{File.join(@dir, 'stubs/fake')}:#{ENV.fetch('PATH')}")

    expect(status.exitstatus).to eq(1), output
    ruby_llm = lines.grep(/\Aruby_llm: /)
    expect(ruby_llm.size).to eq(2 * Dir[File.join(kit, 'ruby_llm-*')].size), output
    expect(ruby_llm.grep(/\Aruby_llm: #{Regexp.escape(first)}/)).to all(include(' FAILED '))
    expect(ruby_llm.grep_v(/\Aruby_llm: #{Regexp.escape(first)}/)).to all(include(' passed '))
    expect(lines[-1]).to start_with("bin/test: not passed: ruby_llm: #{first} on Rails")
  end

  it 'fails a lane whose rows passed when the lane itself failed, and one left out' do
    stub_steps(test_databases: rows_script("run 'postgres' true", 'exit 3'),
               test_sandbox: rows_script("left_out 'in delegated cgroups' 'no cgroup here'"))
    output, status, lines = bin_test

    expect(status.exitstatus).to eq(1), output
    expect(row(lines, 'databases: postgres')).to match(/ passed /)
    expect(row(lines, 'databases')).to match(/ FAILED +exit status 3 outside its rows/)
    expect(row(lines, 'sandbox: in delegated cgroups')).to match(/ left out +no cgroup here /)
    expect(lines[-1]).to start_with('bin/test: not passed: databases (FAILED: exit status 3 outside its rows')
      .and end_with('sandbox: in delegated cgroups (left out: no cgroup here)')
  end

  it 'holds a lane of rows to its own rows alone, never to a failing step before it' do
    stub_steps(cargo_test: 'echo "test result: FAILED. 1 passed; 1 failed"; exit 101',
               test_sandbox: rows_script("run 'as root' bash -c 'echo \"3 examples, 0 failures\"'"))
    output, status, lines = bin_test

    expect(status.exitstatus).to eq(1), output
    expect(row(lines, 'sandbox: as root')).to match(/ passed /)
    expect(lines.grep(/\Asandbox {2,}/)).to eq([]), output
    expect(lines[-1]).to eq('bin/test: not passed: cargo test (FAILED)')
  end

  it 'passes when every row passed, saying which lane this tree does not hold' do
    stub_steps
    output, status, lines = bin_test

    expect(status.exitstatus).to eq(0), output
    expect(lines[-2]).to eq('9 passed, 0 failed')
    expect(lines[-1]).to eq("bin/test: every row passed; not in this tree: async (no #{@dir}/stubs/test-async in this tree)")

    stub('test-async', 'echo "7 examples, 0 failures"')
    output, status, lines = bin_test
    expect(status.exitstatus).to eq(0), output
    expect(row(lines, 'async')).to match(/ passed +7 examples, 0 failures /)
    expect(lines[-2..]).to eq(['10 passed, 0 failed', 'bin/test: every suite passed'])
  end

  it "runs CI's lint as a row, the suites after it when it fails" do
    stub_steps
    stub('lint', 'echo "rubocop: 1 offense"; exit 1')
    output, status, lines = bin_test(lint: '1')

    expect(status.exitstatus).to eq(1), output
    expect(row(lines, 'lint')).to match(/ FAILED /)
    expect(lines[-2..]).to eq(['9 passed, 1 failed', 'bin/test: not passed: lint (FAILED)'])
  end

  it 'leaves every suite out, failing, when the setup failed' do
    stub_steps(setup: 'exit 1')
    output, status, lines = bin_test

    expect(status.exitstatus).to eq(1), output
    expect(lines.grep(/\A(cargo test|rspec) /)).to eq([])
    expect(lines[-1]).to eq('bin/test: not passed: setup (FAILED); every suite (left out: bin/setup failed)')
  end
end
