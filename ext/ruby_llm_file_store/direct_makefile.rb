# frozen_string_literal: true

require 'mkmf'

module RubyLLMFileStoreBuild
  # The Makefile where the rb_sys gem is not installed: cargo driven directly.
  #
  # CARGO_TARGET_DIR, when set, is used and kept (a build cache shared with a checkout);
  # otherwise the build folder is made here and removed after install, since it holds
  # hundreds of megabytes nothing needs once the library is installed. Either way the
  # extension folder keeps no library and no Makefile after install (install is the
  # last target RubyGems runs). RubyGems 3.3 (Ruby 3.1) then copies the installed
  # library into lib/ as well (Gem.install_extension_in_lib); that copy is its own.
  # Cargo runs through cargo_build.rb, which shows it working on the terminal while
  # RubyGems holds the build's output back. The convert worker, the executable every
  # document conversion runs in, is built from the same workspace and installed beside
  # the library (WorkerRules, which the rb_sys Makefile gets too).
  module DirectMakefile
    module_function

    # Writes the Makefile for +target+ (the library's require path, without extension).
    def write(target)
      crate = __dir__
      dlext = RbConfig::CONFIG['DLEXT']
      library = RUBY_PLATFORM.include?('darwin') ? 'libfile_store_native.dylib' : 'libfile_store_native.so'
      strip = RUBY_PLATFORM.include?('darwin') ? 'strip -x' : 'strip --strip-unneeded'
      shared_target = ENV.fetch('CARGO_TARGET_DIR', '')

      File.write('Makefile', <<~MAKE)
        CARGO ?= cargo
        TARGET_DIR = #{shared_target.empty? ? '$(CURDIR)/target' : shared_target}
        SO = file_store_native.#{dlext}
        sitearchdir ?= #{RbConfig::CONFIG['sitearchdir']}

        all: $(SO) $(WORKER)

        $(SO):
        \tCARGO_TARGET_DIR=$(TARGET_DIR) #{RbConfig.ruby} #{crate}/cargo_build.rb $(CARGO) build --release --locked --manifest-path #{crate}/Cargo.toml
        \tcp $(TARGET_DIR)/release/#{library} $(SO)
        \t#{strip} $(SO)

        #{WorkerRules.text(target, strip:)}
        install: $(SO) install-worker
        \tmkdir -p $(DESTDIR)$(sitearchdir)/#{File.dirname(target)}
        \tcp $(SO) $(DESTDIR)$(sitearchdir)/#{target}.#{dlext}
        \trm -f $(SO) $(WORKER) Makefile
        #{"\trm -rf $(TARGET_DIR)" if shared_target.empty?}

        clean:
        \trm -f $(SO) $(WORKER)

        distclean: clean
        \trm -rf $(TARGET_DIR) Makefile
      MAKE
    end
  end

  # The Makefile rules that build the convert worker and install it beside the library
  # (+target+, its require path): appended to rb_sys's Makefile, part of the direct one.
  module WorkerRules
    module_function

    def text(target, strip:)
      manifest = File.expand_path('../../crates/convert/Cargo.toml', __dir__)
      <<~MAKE
        TARGET_DIR ?= $(CURDIR)/target
        WORKER = file_store_convert

        $(WORKER):
        \tCARGO_TARGET_DIR=$(TARGET_DIR) #{RbConfig.ruby} #{__dir__}/cargo_build.rb $(CARGO) build --release --locked --manifest-path #{manifest} --bin file_store_convert
        \tcp $(TARGET_DIR)/release/file_store_convert $(WORKER)
        \t#{strip} $(WORKER)

        install-worker: $(WORKER)
        \tmkdir -p $(DESTDIR)$(sitearchdir)/#{File.dirname(target)}
        \tcp $(WORKER) $(DESTDIR)$(sitearchdir)/#{File.dirname(target)}/file_store_convert
      MAKE
    end
  end
end
