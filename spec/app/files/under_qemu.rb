# frozen_string_literal: true

# Required by bin/test-arm64 when the plain suite runs on Debian's arm64 Ruby 3.3 under
# qemu-user (in a copy of the checkout holding the aarch64 library): the examples that
# cannot run there are skipped, each saying why.
module UnderQemu
  # A child Ruby: RbConfig.ruby is /usr/bin/ruby3.3, which outside qemu-user's -L prefix
  # is the root's amd64 Ruby; without binfmt_misc (not available here) an emulated
  # process's execve runs an amd64 program natively, and that Ruby cannot load the
  # aarch64 library.
  CHILD_RUBY = 'starts a child Ruby, which is the amd64 Ruby outside qemu-user (no binfmt_misc here) ' \
               'and cannot load the aarch64 library'
  # The code sandbox runs bubblewrap, an amd64 program that runs natively, with seccomp
  # filters built for the processor the library runs on (aarch64), which the kernel
  # would check amd64 system calls against; qemu-user also refuses the clone without
  # an exit signal that starts it (EINVAL).
  SANDBOX = 'the code sandbox cannot run under qemu-user: its bubblewrap runs natively as amd64, with ' \
            'seccomp filters built for aarch64, and qemu-user refuses the clone that starts it'
  SKIPPED = {
    'spec/ruby_llm/file_store/code_runner_spec.rb' => SANDBOX,
    'spec/readme/blocks_spec.rb' => CHILD_RUBY,
    'spec/ruby_llm/file_store/rails/configuration_error_spec.rb' => CHILD_RUBY,
    'spec/ruby_llm/file_store/loading_spec.rb' => CHILD_RUBY,
    'spec/ruby_llm/file_store/log_subscriber_spec.rb:98' => CHILD_RUBY,
    'spec/ruby_llm/file_store/sweep_spec.rb:67' => CHILD_RUBY
  }.freeze

  module_function

  def reason(metadata)
    file = metadata[:file_path].delete_prefix('./')
    SKIPPED[file] || SKIPPED["#{file}:#{metadata[:line_number]}"]
  end
end

RSpec.configure do |config|
  config.define_derived_metadata do |metadata|
    reason = UnderQemu.reason(metadata)
    metadata[:skip] = "under qemu-user: #{reason}" if reason
  end
end
