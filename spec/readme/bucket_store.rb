# frozen_string_literal: true

require 'digest/sha2'

# The store docs/stores.md's "Your own store" block tests: files kept in a bucket (here
# a Hash of key => [bytes, content type, time], as an object store's client would
# hold them) under a key prefix, written as that section says: the five methods,
# each path through RubyLLM::FileStore.path, content types from
# RubyLLM::FileStore.content_type.
class BucketStore < RubyLLM::FileStore
  def initialize(bucket, prefix)
    super()
    @bucket = bucket
    @prefix = prefix
    @mutex = Mutex.new
  end

  def list(folder = nil)
    start = folder ? "#{@prefix}#{RubyLLM::FileStore.path(folder)}/" : @prefix
    keys = @mutex.synchronize { @bucket.keys.select { |key| key.start_with?(start) } }
    keys.sort.filter_map { |key| self[key.delete_prefix(@prefix)] }
  end

  def [](path)
    path = RubyLLM::FileStore.path(path)
    bytes, content_type, time = @mutex.synchronize { @bucket["#{@prefix}#{path}"] }
    return unless bytes

    RubyLLM::StoredFile.new(path:, byte_size: bytes.bytesize, content_type:,
                            digest: Digest::SHA256.hexdigest(bytes), updated_at: time)
  end

  def read(path)
    path = RubyLLM::FileStore.path(path)
    entry = @mutex.synchronize { @bucket["#{@prefix}#{path}"] }
    raise RubyLLM::FileNotFoundError, "No file at #{path}" unless entry

    entry.first.dup
  end

  def write(path, content, content_type: nil)
    path = RubyLLM::FileStore.path(path)
    bytes = content.is_a?(String) ? content.b : readable(content, path).read.to_s.b
    content_type ||= RubyLLM::FileStore.content_type(path, bytes.byteslice(0, 512))
    @mutex.synchronize do
      refuse_clash(path)
      @bucket["#{@prefix}#{path}"] = [bytes, content_type, Time.now]
    end
    self[path]
  end

  def delete(path)
    path = RubyLLM::FileStore.path(path)
    file = self[path]
    raise ArgumentError, "#{path} is a folder, not a file" if file.nil? && list(path).any?

    @mutex.synchronize { @bucket.delete("#{@prefix}#{path}") }
    file
  end

  private

  def readable(content, path)
    return content if content.respond_to?(:read)

    raise ArgumentError, "content for #{path} must be a String or an IO, not #{content.class}"
  end

  # A key may not be both a file and a folder, as in a folder on disk.
  def refuse_clash(path)
    raise ArgumentError, "#{path} is a folder, not a file" if @bucket.each_key.any? do |key|
      key.start_with?("#{@prefix}#{path}/")
    end

    parts = path.split('/')[0...-1]
    parts.each_index do |index|
      folder = parts[0..index].join('/')
      raise ArgumentError, "#{folder} is a file, not a folder" if @bucket.key?("#{@prefix}#{folder}")
    end
  end
end
