# frozen_string_literal: true

require 'mkmf'
require_relative 'toolchain'
require_relative 'direct_makefile'

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
  # The convert worker is no crate rb_sys knows of: its rules join the Makefile's.
  File.write('Makefile', <<~MAKE, mode: 'a')

    CARGO ?= cargo
    #{RubyLLMFileStoreBuild::WorkerRules.text(target, strip: 'strip')}
    all: $(WORKER)
    install: install-worker
  MAKE
  true
rescue LoadError
  false
end

TARGET = 'ruby_llm/file_store/file_store_native'
rb_sys_makefile(TARGET) || RubyLLMFileStoreBuild::DirectMakefile.write(TARGET)
