# frozen_string_literal: true

require_relative 'interrupts'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # What the Active Storage store does so that a change stopped any way (an error,
      # a throw, Timeout.timeout, Thread#kill), even one stopped while it commits,
      # leaves no blob, row or bytes that no file uses. Cleanup runs deferred: a
      # second interrupt cannot cut it short.
      module Tidying # :nodoc:
        # The blobs the outermost with_lock of this thread uploads, replaces or deletes.
        TOUCHED = :ruby_llm_file_store_touched
        # The blobs of changes that failed inside it, tidied once it ends: not before,
        # for its transaction may still roll back to rows that use them.
        LATER = :ruby_llm_file_store_tidy_later

        private

        # Runs the block, the outermost lock of this thread. Once it ends it tidies the
        # blobs of the changes that failed in it, and, stopped before it returned,
        # every blob the changes in it touched.
        def tidying
          return yield if Thread.current[TOUCHED]

          # Made before the begin, so an interrupt landing between the two assignments
          # below leaves the ensure two lists to read.
          touched = []
          later = []
          begin
            Thread.current[TOUCHED] = touched
            Thread.current[LATER] = later
            yield.tap { touched = [] }
          ensure
            Thread.current[TOUCHED] = Thread.current[LATER] = nil
            blobs = (later + touched).uniq
            Interrupts.deferred { blobs.each { |blob| tidy(blob) } } if blobs.any?
          end
        end

        # Tidies +blobs+ now, or inside a lock, once the outermost lock ends.
        def tidy_after(*blobs)
          later = Thread.current[LATER]
          later ? later.concat(blobs.compact) : blobs.each { |blob| tidy(blob) }
        end

        # Notes +blob+, which a change uploads, replaces or deletes, for the outermost
        # lock to tidy should it stop; returns it.
        def touching(blob)
          Thread.current[TOUCHED]&.push(blob) if blob
          blob
        end

        # Removes +blob+ if nothing uses it (see Upload.tidy).
        def tidy(blob)
          db { Upload.tidy(blob) } if blob
        end

        # After a write: unless its row was saved, what it uploaded goes, and the blob
        # it replaced if its commit was stopped halfway, before the callbacks that
        # purge it.
        def finish(upload, saved:)
          Interrupts.deferred do
            tidy_after(upload.uploaded_blob, upload.replaced) unless saved
          ensure
            upload.close
          end
        end
      end
    end
  end
end
