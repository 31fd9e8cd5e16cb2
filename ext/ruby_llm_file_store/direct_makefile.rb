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
  # RubyGems holds the build's output back.
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

        all: $(SO)

        $(SO):
        \tCARGO_TARGET_DIR=$(TARGET_DIR) #{RbConfig.ruby} #{crate}/cargo_build.rb $(CARGO) build --release --locked --manifest-path #{crate}/Cargo.toml
        \tcp $(TARGET_DIR)/release/#{library} $(SO)
        \t#{strip} $(SO)

        install: $(SO)
        \tmkdir -p $(DESTDIR)$(sitearchdir)/#{File.dirname(target)}
        \tcp $(SO) $(DESTDIR)$(sitearchdir)/#{target}.#{dlext}
        \trm -f $(SO) Makefile
        #{"\trm -rf $(TARGET_DIR)" if shared_target.empty?}

        clean:
        \trm -f $(SO)

        distclean: clean
        \trm -rf $(TARGET_DIR) Makefile
      MAKE
    end
  end
end
