# frozen_string_literal: true

require 'fileutils'

module RubyLLM
  class FileStore
    class CodeRunner
      # Folders the app names (skills, reference data) linked into the run folder for
      # one run: a symbolic link at the path, its target shown read-only by the
      # sandbox, removed after the run. Where the folder has its own file or folder at
      # that path, the run sees that one, and a note says so.
      class Mounts # :nodoc:
        # The links made for one run.
        Links = Struct.new(:made, :sources, :notes) do
          # Removes the links (only those still pointing where they were made) and the
          # folders made to hold them.
          def remove
            made.reverse_each do |link, target, folders|
              File.unlink(link) if File.symlink?(link) && File.readlink(link) == target
              folders.reverse_each { |folder| Dir.rmdir(folder) if Dir.empty?(folder) }
            rescue SystemCallError
              next
            end
          end
        end

        def initialize(mounts)
          @mounts = (mounts || {}).to_h do |path, folder|
            source = File.expand_path(folder.to_s)
            raise ArgumentError, "mount #{path.inspect}: #{source} is not a folder" unless File.directory?(source)

            [FileStore.path(path.to_s), File.realpath(source)]
          end
        end

        # Links each mount into +dir+ and returns the Links.
        def link(dir)
          links = Links.new([], [], [])
          @mounts.each do |path, source|
            at = File.join(dir, path)
            if File.exist?(at) || File.symlink?(at)
              links.notes << "#{path} is this folder's own, so the run used it instead of the mounted #{path}."
              next
            end
            folders = missing_folders(dir, File.dirname(path))
            FileUtils.mkdir_p(File.dirname(at))
            File.symlink(source, at)
            links.made << [at, source, folders]
            links.sources << source
          end
          links
        end

        private

        def missing_folders(dir, parent)
          return [] if parent == '.'

          parts = parent.split('/')
          parts.each_index.map { |i| File.join(dir, *parts[0..i]) }.reject { |folder| File.exist?(folder) }
        end
      end
    end
  end
end
