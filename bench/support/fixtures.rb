# frozen_string_literal: true

require 'digest'
require 'fileutils'

class StoreBench
  # The files bench/store.rb works on, made once with plain Ruby so that neither store
  # writes the other's input.
  module Fixtures
    EXTENSIONS = %w[txt md json rb csv].freeze

    module_function

    # Writes folders x subfolders x files files of about 100 bytes below +root+ and
    # returns their paths inside it.
    def tree(root, folders:, subfolders:, files:)
      paths = []
      folders.times do |f|
        subfolders.times do |s|
          folder = format('d%<f>02d/s%<s>02d', f:, s:)
          FileUtils.mkdir_p(File.join(root, folder))
          files.times do |n|
            path = format('%<folder>s/f%<n>03d.%<ext>s', folder:, n:, ext: EXTENSIONS[n % EXTENSIONS.size])
            File.binwrite(File.join(root, path), "#{path}\n".ljust(100, '.'))
            paths << path
          end
        end
      end
      paths
    end

    # +count+ paths to look up, shuffled: nine in ten from +existing+, the others
    # missing, half in folders that exist and half in folders that do not.
    def lookups(existing, count)
      random = Random.new(42)
      missing = count / 10
      hits = existing.sample(count - missing, random:)
      misses = Array.new(missing) do |i|
        i.even? ? format('d%<f>02d/s00/missing%<i>05d.txt', f: i % 50, i:) : format('nope%<i>05d/s00/f000.txt', i:)
      end
      (hits + misses).shuffle(random:)
    end

    # +count+ paths in 20 folders and 1 KB of text for each.
    def small_files(count)
      Array.new(count) do |i|
        path = format('batch/%<f>02d/file%<i>05d.md', f: i % 20, i:)
        [path, "# #{path}\n#{"line #{i} of some notes\n" * 45}".b.byteslice(0, 1024).ljust(1024, '.')]
      end
    end

    # Writes +megabytes+ MB of random bytes to +path+ a MB at a time and returns the
    # SHA-256 of the content.
    def large_file(path, megabytes)
      digest = Digest::SHA256.new
      chunk = Random.new(7).bytes(1024 * 1024)
      File.open(path, 'wb') do |file|
        megabytes.times do
          file.write(chunk)
          digest << chunk
        end
      end
      digest.hexdigest
    end
  end
end
