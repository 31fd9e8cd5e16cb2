# frozen_string_literal: true

# The escape suite, part ten: an app in a container of limited memory (a memory
# cgroup around it, as Docker's --memory makes) whose run outgrows what the app
# leaves. The run's cgroup is below the app's, so the app's ceiling is reached
# first: the OOM killer then chooses among the app and the run's processes, and
# must take the run's. bin/test-sandbox runs it as root and as a user in cgroups
# delegated to it; a user with none skips it.
RSpec.describe 'The code sandbox in an app inside a memory cgroup', if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include GemRuby

  # Grows by 10 MB at a time, each page touched, to 600 MB, saying how far it got.
  let(:grow) do
    <<~PY
      held = []
      for n in range(1, 61):
          held.append(bytearray(10 << 20))
          for i in range(0, 10 << 20, 4096): held[-1][i] = 1
          print(n * 10, flush=True)
      print('grew', flush=True)
    PY
  end

  it 'kills the run that outgrows a cgroup of 600 MB, never the app holding 350 MB, more than the run' do
    skip "no sandbox here: #{RubyLLM::FileStore::Native.sandbox_problem}" if RubyLLM::FileStore::Native.sandbox_problem
    group = MemoryCgroup.make(600 << 20)
    skip 'needs a memory cgroup this process can make (root, or a delegated one)' unless group

    begin
      output = ruby(<<~RUBY, prefix: ['sh', '-c', "echo $$ > #{group}/cgroup.procs && exec \"$@\"", 'sh'])
        held = Array.new(35) { |n| (n + 1).chr * (10 << 20) }
        runner = RubyLLM::FileStore::CodeRunner.new(RubyLLM.file_store.memory, python: [], timeout: 60)
        result = runner.run(language: 'python', code: #{grow.inspect})
        puts "alive (\#{held.sum(&:bytesize) >> 20} MB held); the run: exit \#{result.exit_code} at \#{result.stdout.split.last} MB"
      RUBY
      expect(output).to match(/\Aalive \(350 MB held\); the run: exit 137 at \d+ MB\n\z/)
      # Killed while it held less than the app: the OOM killer's choice, not its size.
      expect(output[/at (\d+) MB/, 1].to_i).to be < 350
    ensure
      MemoryCgroup.remove(group)
    end
  end
end
