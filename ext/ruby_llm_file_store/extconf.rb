# frozen_string_literal: true

require 'mkmf'

TARGET = 'ruby_llm/file_store/file_store_native'

begin
  require 'rb_sys/mkmf'
  create_rust_makefile(TARGET)
rescue LoadError
  # Without the rb_sys gem (Debian packages none), drive cargo directly: build the
  # binding crate and install its library where Ruby requires it.
  crate = __dir__
  dlext = RbConfig::CONFIG['DLEXT']
  library = RUBY_PLATFORM.include?('darwin') ? 'libfile_store_native.dylib' : 'libfile_store_native.so'
  File.write('Makefile', <<~MAKE)
    CARGO ?= cargo
    TARGET_DIR = $(CURDIR)/target
    SO = file_store_native.#{dlext}
    sitearchdir ?= #{RbConfig::CONFIG['sitearchdir']}

    all: $(SO)

    $(SO):
    \tCARGO_TARGET_DIR=$(TARGET_DIR) $(CARGO) build --release --locked --manifest-path #{crate}/Cargo.toml
    \tcp $(TARGET_DIR)/release/#{library} $(SO)

    # The build folder holds hundreds of megabytes nothing needs once installed.
    install: $(SO)
    \tmkdir -p $(DESTDIR)$(sitearchdir)/#{File.dirname(TARGET)}
    \tcp $(SO) $(DESTDIR)$(sitearchdir)/#{TARGET}.#{dlext}
    \trm -rf $(TARGET_DIR)

    clean:
    \trm -f $(SO)

    distclean: clean
    \trm -rf $(TARGET_DIR) Makefile
  MAKE
end
