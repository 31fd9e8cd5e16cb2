# frozen_string_literal: true

require 'open3'
require 'rbconfig'

# extconf.rb, run as RubyGems runs it (in a build folder): the rb_sys gem's
# create_rust_makefile where that gem loads, the direct cargo Makefile where it does not.
RSpec.describe 'ext/ruby_llm_file_store/extconf.rb' do
  include TmpDirHelper

  let(:extconf) { File.expand_path('../../ext/ruby_llm_file_store/extconf.rb', __dir__) }

  def configure(*ruby_options)
    Open3.capture2e({ 'RUBYOPT' => nil, 'PATH' => "#{Dir.home}/.cargo/bin:#{ENV.fetch('PATH')}" },
                    RbConfig.ruby, *ruby_options, extconf, chdir: tmp_dir)
  end

  it 'writes a Makefile that drives cargo through cargo_build.rb where rb_sys is not installed' do
    output, status = configure
    expect(status).to be_success, output
    makefile = File.read(File.join(tmp_dir, 'Makefile'))
    expect(makefile).to include('cargo_build.rb $(CARGO) build --release --locked --manifest-path')
    expect(makefile).to include('$(DESTDIR)$(sitearchdir)/ruby_llm/file_store/file_store_native.')
    # The convert worker, built from the same workspace and installed beside the library.
    expect(makefile).to include('--manifest-path', 'crates/convert/Cargo.toml --bin file_store_convert',
                                '$(DESTDIR)$(sitearchdir)/ruby_llm/file_store/file_store_convert',
                                'install: $(SO) install-worker')
  end

  it "hands the target to rb_sys's create_rust_makefile where the rb_sys gem loads" do
    shim = File.join(tmp_dir, 'shim', 'rb_sys')
    FileUtils.mkdir_p(shim)
    # Stands in for the rb_sys gem, which this machine cannot install: it records the call.
    File.write(File.join(shim, 'mkmf.rb'), <<~RUBY)
      def create_rust_makefile(target) = File.write('Makefile', "rb_sys: \#{target}\\n")
    RUBY
    output, status = configure('-I', File.dirname(shim))
    expect(status).to be_success, output
    makefile = File.read(File.join(tmp_dir, 'Makefile'))
    expect(makefile).to start_with("rb_sys: ruby_llm/file_store/file_store_native\n")
    # rb_sys knows nothing of the convert worker: its rules join the Makefile's.
    expect(makefile).to include('--bin file_store_convert', "install: install-worker\n", "all: $(WORKER)\n",
                                '$(DESTDIR)$(sitearchdir)/ruby_llm/file_store/file_store_convert')
  end
end
