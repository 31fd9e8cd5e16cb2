# frozen_string_literal: true

# The methods the binding defines, read from its Rust sources
# (ext/ruby_llm_file_store/src): Ruby reports a magnus method that reads keywords
# with scan_args as arity -1, which says nothing of what it takes, so what each
# method takes by position is read where it is written. Each method is a Hash of
# its +receiver+ (the Ruby class or module's name), +name+, +instance+ (or
# singleton), +arity+ (the function!/method! arity) and +types+, the Rust types it
# takes by position: the function's parameters less the Ruby handle and self, or
# for arity -1 the types its <tt>convert::keywords::<(...)></tt> call names.
module BindingSources
  SOURCES = File.expand_path('../../ext/ruby_llm_file_store/src', __dir__)
  DEFINE = /\.define_(module_function|singleton_method|method)\(\s*"([^"]+)",\s*(?:function|method)!\(([\w:]+),\s*(-?\d+)\)/
  NOT_POSITIONAL = /\A(ruby: &Ruby|rb_self:|&self|args: &\[Value\])/
  NATIVE = 'RubyLLM::FileStore::Native'

  module_function

  def methods_defined
    @methods_defined ||= sources.values.flat_map do |source|
      source.scan(DEFINE).map do |kind, name, path, arity|
        text = function(source, path, arity)
        { receiver: receiver(kind, path, text), name:, instance: kind == 'method', arity: Integer(arity),
          types: positional(text, arity).map { |param| param.split(':').last.strip } }
      end
    end
  end

  # The Rust types a function takes by position.
  def positional(text, arity)
    return text[/keywords::<\((.*?)\)>/m, 1].to_s.split(',').map(&:strip) if arity == '-1'

    text[/\((.*?)\)\s*(->|\{)/m, 1].to_s.split(',').map(&:strip).reject(&:empty?).grep_v(NOT_POSITIONAL)
  end

  def sources
    @sources ||= Dir[File.join(SOURCES, '*.rs')].to_h { |path| [File.basename(path), File.read(path)] }
  end

  # Rust type => the Ruby class it wraps, from the #[magnus::wrap] attributes.
  def wrapped
    @wrapped ||= sources.values.join.scan(/magnus::wrap\(\s*class = "([\w:]+)".*?\)\]\s*pub struct (\w+)/m)
                        .to_h { |ruby, rust| [rust, ruby] }
  end

  # The text of the Rust function +path+ names in +source+: its parameters and
  # body up to the next function. A function of the core's own (+pool::running+)
  # is bound as it is when it takes nothing.
  def function(source, path, arity)
    start = source.index(/fn #{path.split('::').last}\b/)
    return source[start, (source.index(/\n\s*(pub )?fn /, start + 1) || source.size) - start] if start
    return '' if arity == '0' && path.match?(/\A[a-z_]+::/)

    raise "no fn #{path} in the binding"
  end

  # The Ruby receiver of a method defined by +path+: Native for a module
  # function, else the class its Rust type wraps.
  def receiver(kind, path, text)
    return NATIVE if kind == 'module_function'

    type = path.match?(/\A[A-Z]\w*::/) ? path.split('::').first : text[/rb_self: &(\w+)/, 1]
    wrapped.fetch(type) { raise "cannot tell which class #{path} is defined on" }
  end

  # The same methods as Ruby sees them: +[receiver, name, instance, arity]+.
  def methods_seen
    native = Object.const_get(NATIVE)
    classes = native.constants.map { |name| native.const_get(name) }.grep(Class)
    [native, *classes].flat_map do |owner|
      instance = owner.is_a?(Class) ? owner.instance_methods(false) : []
      owner.singleton_methods(false).map { |name| [owner.name, name.to_s, false, owner.method(name).arity] } +
        instance.map { |name| [owner.name, name.to_s, true, owner.instance_method(name).arity] }
    end
  end
end
