# frozen_string_literal: true

require_relative 'interrupts'

module RubyLLM
  module ActiveRecord
    # What the Active Storage store does so that a change stopped any way (an error,
    # a throw, Timeout.timeout, Thread#kill), even one stopped while it commits,
    # leaves no blob, row or bytes that no file uses. Cleanup runs deferred: a
    # second interrupt cannot cut it short.
    module Tidying # :nodoc:
      # The blobs the outermost with_lock of this thread uploads, replaces or deletes.
      TOUCHED = :ruby_llm_file_store_touched

      private

      # Runs the block, the outermost lock of this thread; stopped before it
      # returns, it tidies every blob the changes in it touched.
      def tidying
        return yield if Thread.current[TOUCHED]

        begin
          Thread.current[TOUCHED] = touched = []
          yield.tap { touched = nil }
        ensure
          Thread.current[TOUCHED] = nil
          Interrupts.deferred { touched.each { |blob| tidy(blob) } } if touched
        end
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
          unless saved
            tidy(upload.uploaded_blob)
            tidy(upload.replaced)
          end
        ensure
          upload.close
        end
      end
    end
  end
end
