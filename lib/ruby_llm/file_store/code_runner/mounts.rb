# frozen_string_literal: true

module RubyLLM
  class FileStore
    class CodeRunner
      # Folders the app names (skills, reference data) linked into the run folder for
      # one run: a symbolic link at the path, its target shown read-only by the
      # sandbox, removed after the run. Where the folder has its own file, folder or
      # link at that path (or on the way to it), the run sees that one, and a note says
      # so. Links are made and removed natively, relative to the folder's descriptor
      # with no link followed, so nothing a run planted can send them outside.
      class Mounts # :nodoc:
        # The links made for one run.
        Links = Struct.new(:dir, :made, :sources, :notes) do
          # Removes the links (only those still pointing where they were made) and the
          # folders made to hold them, where empty.
          def remove
            made.reverse_each do |path, source, folders|
              Native.mount_unlink(root: dir, path:, source:, folders:)
            rescue FileStore::Error, SystemCallError
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
          links = Links.new(dir, [], [], [])
          @mounts.each do |path, source|
            folders = Native.mount_link(root: dir, path:, source:)
            if folders.nil?
              links.notes << "#{path} is this folder's own, so the run used it instead of the mounted #{path}."
              next
            end
            links.made << [path, source, folders]
            links.sources << source
          end
          links
        end
      end
    end
  end
end
