# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Converters
      # <tt>config.file_converters</tt>: a Hash of converters by MIME type that
      # refuses, as it is given, what would otherwise fail only in front of the
      # model or be ignored without a word: a key that is not a MIME type
      # (<tt>"application/pdf"</tt>), a family (<tt>"image/*"</tt>) or
      # <tt>"*/*"</tt>, and a converter that does not answer <tt>call(file)</tt>.
      # A value is a converter, an Array of them tried in order, or nil.
      #
      #   config.file_converters["pdf"] = RubyLLM.file_store.converter.pdf
      #   # raises ArgumentError: config.file_converters["pdf"]: "pdf" is not a MIME type ...
      class Registry < Hash
        # A type, a family or any: <tt>type/subtype</tt>, <tt>type/*</tt>, <tt>*/*</tt>.
        TOKEN = '[a-z0-9][a-z0-9!\\#$&^_.+-]*'
        KEY = %r{\A(?:\*/\*|#{TOKEN}/(?:\*|#{TOKEN}))\z}i

        # A Registry holding +converters+ (a Hash), each checked.
        def self.of(converters)
          unless converters.is_a?(Hash)
            raise ArgumentError,
                  "file_converters takes a Hash of converters by MIME type, not #{converters.inspect}"
          end

          new.update(converters)
        end

        def []=(key, value)
          Registry.check(key, value)
          super
        end

        def store(key, value)
          self[key] = value
        end

        def update(*others)
          others.each { |other| other.each { |key, value| Registry.check(key, value) } }
          super
        end
        alias merge! update

        def replace(other)
          other.each { |key, value| Registry.check(key, value) }
          super
        end

        # Raises ArgumentError unless +key+ is a MIME type or family and +value+
        # converters (or nil).
        def self.check(key, value)
          where = "config.file_converters[#{key.inspect}]"
          unless key.is_a?(String) && KEY.match?(key)
            raise ArgumentError, "#{where}: #{key.inspect} is not a MIME type (\"application/pdf\"), a family " \
                                 '("image/*") or "*/*"'
          end
          (value.is_a?(Array) ? value : [value]).compact.each { |converter| check_converter(where, converter) }
        end

        def self.check_converter(where, converter)
          problem = if !converter.respond_to?(:call)
                      'does not answer call'
                    elsif !takes_one?(converter)
                      'does not take one argument, the file, in call'
                    end
          return unless problem

          raise ArgumentError, "#{where}: #{converter.inspect} #{problem}: a converter is an object whose " \
                               'call(file) returns its text or nil, such as ->(file) { ... }'
        end

        # Whether +converter+'s call takes one argument: a lambda or method of one
        # (or of optional or any number), or a proc, which takes any.
        def self.takes_one?(converter)
          callable = converter.is_a?(Proc) ? converter : converter.method(:call)
          return true if callable.is_a?(Proc) && !callable.lambda?

          arity = callable.arity
          arity == 1 || (arity.negative? && arity >= -2)
        rescue NameError
          true
        end
      end
    end
  end
end
