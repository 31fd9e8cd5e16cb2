# frozen_string_literal: true

require 'digest'
require 'fileutils'

# The folder store a Ruby gem would write without a native extension: the baseline
# bench/store.rb measures RubyLLM::FileStore::Directory against. It keeps the same
# contract where it is cheap to (sorted lists, hidden files left out, atomic synced
# writes, content types from the name) and does nothing to lose on purpose.
class RubyDirectoryStore < RubyLLM::FileStore
  # Content types by extension, the same answers the native store gives for them.
  TYPES = {
    'txt' => 'text/plain', 'log' => 'text/plain', 'md' => 'text/markdown', 'markdown' => 'text/markdown',
    'csv' => 'text/csv', 'html' => 'text/html', 'htm' => 'text/html', 'xml' => 'text/xml',
    'js' => 'text/javascript', 'ts' => 'text/typescript', 'rb' => 'text/x-ruby', 'py' => 'text/x-python',
    'rs' => 'text/x-rust', 'go' => 'text/x-go', 'json' => 'application/json', 'jsonl' => 'application/jsonl',
    'yml' => 'application/yaml', 'yaml' => 'application/yaml', 'toml' => 'application/toml',
    'pdf' => 'application/pdf', 'png' => 'image/png', 'jpg' => 'image/jpeg', 'jpeg' => 'image/jpeg',
    'gif' => 'image/gif', 'zip' => 'application/zip', 'bin' => 'application/octet-stream'
  }.freeze
  UNKNOWN = 'application/octet-stream'

  attr_reader :local_root

  def initialize(path)
    super()
    @local_root = File.expand_path(path.to_s)
    FileUtils.mkdir_p(@local_root)
    @temp_count = 0
  end

  def list(prefix = nil)
    base = prefix && clean(prefix)
    dir = base ? File.join(@local_root, base) : @local_root
    return [] unless File.directory?(dir)

    Dir.glob('**/*', base: dir).sort!.filter_map do |relative|
      stat = File.lstat(File.join(dir, relative))
      stored(base ? "#{base}/#{relative}" : relative, stat) if stat.file?
    end
  end

  def [](path)
    path = clean(path)
    return nil if hidden?(path)

    stat = File.lstat(File.join(@local_root, path))
    stat.file? ? stored(path, stat) : nil
  rescue Errno::ENOENT, Errno::ENOTDIR
    nil
  end

  def read(path)
    path = clean(path)
    File.binread(File.join(@local_root, path))
  rescue Errno::ENOENT, Errno::ENOTDIR, Errno::EISDIR
    raise RubyLLM::FileNotFoundError, "No file at #{path}"
  end

  # Writes to a hidden temporary file beside the target, syncs it, then renames it
  # over the target, so a reader sees the old file or the new one.
  def write(path, content, content_type: nil) # rubocop:disable Lint/UnusedMethodArgument
    path = clean(path)
    raise ArgumentError, "#{path} is hidden" if hidden?(path)

    data = content.is_a?(String) ? content : content.read
    full = File.join(@local_root, path)
    FileUtils.mkdir_p(File.dirname(full))
    temp = File.join(File.dirname(full), ".#{File.basename(full)}.#{Process.pid}-#{@temp_count += 1}.tmp")
    File.open(temp, 'wb') do |file|
      file.write(data)
      file.fsync
    end
    File.rename(temp, full)
    stored(path, File.lstat(full), digest: Digest::SHA256.hexdigest(data))
  end

  def delete(path)
    file = self[path]
    File.delete(File.join(@local_root, file.path)) if file
    file
  rescue Errno::ENOENT
    nil
  end

  private

  # The path inside the store: forward slashes, no leading ./ or /, no . or .. parts.
  def clean(name)
    parts = name.to_s.tr('\\', '/').split('/').reject(&:empty?)
    parts.shift while parts.first == '.'
    if parts.empty? || parts.include?('.') || parts.include?('..') || name.to_s.match?(/[\x00-\x1f]/)
      raise ArgumentError, "#{name.inspect} is not a path inside the chat's files"
    end

    parts.join('/')
  end

  def hidden?(path)
    path.start_with?('.') || path.include?('/.')
  end

  def stored(path, stat, digest: nil)
    full = File.join(@local_root, path)
    RubyLLM::StoredFile.new(path:, byte_size: stat.size, content_type: type_of(path), digest:,
                            updated_at: stat.mtime) do
      Digest::SHA256.file(full).hexdigest
    end
  end

  def type_of(path)
    name = File.basename(path)
    dot = name.rindex('.')
    return UNKNOWN unless dot&.positive?

    TYPES.fetch(name[(dot + 1)..].downcase, UNKNOWN)
  end
end
