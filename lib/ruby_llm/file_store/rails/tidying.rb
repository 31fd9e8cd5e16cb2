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

        # Removes +blob+ if nothing uses it (see Upload.tidy). Rails lets an interrupt
        # into a query even here, inside a deferred section (its connection's lock
        # takes them at once), so one may cut the first try between deleting the row
        # and deleting the bytes; a second try, on another connection (the cut one is
        # dropped), finishes it, and the interrupt goes on as it came.
        def tidy(blob)
          return unless blob

          done = false
          begin
            db { Upload.tidy(blob) }
            done = true
          ensure
            retidy(blob) unless done
          end
        end

        def retidy(blob)
          db { Upload.tidy(blob) }
        rescue StandardError
          nil # left a row of the store's that no attachment uses, which Tidy removes
        end

        # After a write: unless its row was saved, what it uploaded goes, and the blob
        # it replaced if its commit was stopped halfway, before the callbacks that
        # purge it. An upload stopped in flight keeps its row (see Upload#in_flight?).
        def finish(upload, saved:)
          Interrupts.deferred do
            unless saved
              upload.in_flight? ? abandon(upload) : tidy_after(upload.uploaded_blob, upload.replaced)
            end
          ensure
            upload.close
          end
        end

        def abandon(upload)
          upload.abandon
        rescue StandardError
          nil # its row names it still
        ensure
          # Inside a lock the row goes with the lock's transaction: the key is deleted
          # once more when the lock ends, after the service is done with it.
          tidy_after(upload.uploaded_blob) if Thread.current[LATER]
        end
      end
    end
  end
end
