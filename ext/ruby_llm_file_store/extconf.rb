# frozen_string_literal: true

require 'mkmf'

# Builds the binding crate with cargo and installs its library, stripped, where Ruby
# requires it (ruby_llm/file_store/file_store_native). rb_sys is not needed: the
# crate gets Ruby's headers through the rb-sys crate, which reads them from the Ruby
# running this file, and cargo is driven directly.
#
# CARGO_TARGET_DIR, when set, is used and kept (a build cache shared with a checkout);
# otherwise the build folder is made here and removed after install, since it holds
# hundreds of megabytes nothing needs once the library is installed. Either way the
# extension folder keeps no library and no Makefile after install (install is the
# last target RubyGems runs). RubyGems 3.3 (Ruby 3.1) then copies the installed
# library into lib/ as well (Gem.install_extension_in_lib); that copy is its own.
TARGET = 'ruby_llm/file_store/file_store_native'
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
  \tCARGO_TARGET_DIR=$(TARGET_DIR) $(CARGO) build --release --locked --manifest-path #{crate}/Cargo.toml
  \tcp $(TARGET_DIR)/release/#{library} $(SO)
  \t#{strip} $(SO)

  install: $(SO)
  \tmkdir -p $(DESTDIR)$(sitearchdir)/#{File.dirname(TARGET)}
  \tcp $(SO) $(DESTDIR)$(sitearchdir)/#{TARGET}.#{dlext}
  \trm -f $(SO) Makefile
  #{"\trm -rf $(TARGET_DIR)" if shared_target.empty?}

  clean:
  \trm -f $(SO)

  distclean: clean
  \trm -rf $(TARGET_DIR) Makefile
MAKE
