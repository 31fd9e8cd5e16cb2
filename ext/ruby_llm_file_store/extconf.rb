# frozen_string_literal: true

require 'mkmf'
require_relative 'toolchain'

# Builds the binding crate with cargo and installs its library, stripped, where Ruby
# requires it (ruby_llm/file_store/file_store_native).
#
# What the build needs is checked first: without cargo, a recent enough rustc or
# libclang, the install stops here with one line saying what to install (and that a
# precompiled gem exists), not with cargo's or bindgen's first error.
problem = RubyLLMFileStoreBuild::Toolchain.problem
if problem
  warn problem
  exit 1
end

# Where the rb_sys gem is installed, its Makefile is used (it knows more platforms).
# Otherwise, as here, cargo is driven directly: the crate gets Ruby's headers through
# the rb-sys crate, which reads them from the Ruby running this file.
def rb_sys_makefile(target)
  require 'rb_sys/mkmf'
  create_rust_makefile(target)
  true
rescue LoadError
  false
end

# CARGO_TARGET_DIR, when set, is used and kept (a build cache shared with a checkout);
# otherwise the build folder is made here and removed after install, since it holds
# hundreds of megabytes nothing needs once the library is installed. Either way the
# extension folder keeps no library and no Makefile after install (install is the
# last target RubyGems runs). RubyGems 3.3 (Ruby 3.1) then copies the installed
# library into lib/ as well (Gem.install_extension_in_lib); that copy is its own.
# Cargo runs through cargo_build.rb, which shows it working on the terminal while
# RubyGems holds the build's output back.
def direct_makefile(target)
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

TARGET = 'ruby_llm/file_store/file_store_native'
rb_sys_makefile(TARGET) || direct_makefile(TARGET)
