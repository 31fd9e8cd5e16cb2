# frozen_string_literal: true

require 'digest'

module RubyLLM
  class FileStore
    module Converters
      # What the PDF, Office and HTML converters share: the bytes go to a convert
      # worker process, waited for off the GVL, and come back as text, or as nil when
      # the file is not one the converter reads (so the next registered converter
      # runs). A document that stopped its worker (more memory or CPU time than a
      # conversion may have) raises UnreadableDocumentError, which the model reads as
      # "report.pdf could not be read: ..." rather than a file it may send on, and
      # which is kept. No worker to convert it (the worker cannot run, one was
      # killed from outside) raises WorkerError, naming the file: kept by no one,
      # and never read as the file itself instead.
      module Builtin
        module_function

        # Documents that stopped a worker, by converter and SHA-256, so one is not
        # sent to a worker again: the last STOPPED_KEPT of them in the process.
        STOPPED_KEPT = 1000
        STOPPED = {} # rubocop:disable Style/MutableConstant
        STOPPED_LOCK = Mutex.new

        # Starts a convert worker, without waiting, when +config+ registers a built-in
        # converter and this process has none, so the model's first read_file of a
        # document does not wait for one to start. Whether +config+ registers one.
        def prestart(config)
          return false unless Converters.registry(config).values.flatten.intersect?(CONVERTERS)

          Native.converter_prestart
          true
        end

        # What each new store asks, so a store made outside any chat (a job's, a tool
        # call's) finds a worker at its first conversion: prestart with the app's
        # registry, once per process. Keyed by pid, as the pool is: a process forked
        # after it (a Puma worker, a job runner) has a pool of its own and starts
        # its own worker. Every store after that costs one comparison; two threads
        # that race here both ask, and the pool starts one worker.
        def prestart_in_process
          return if @prestarted_in == Process.pid

          @prestarted_in = Process.pid if prestart(nil)
        end

        # The text +function+ of the native core reads from +attachment+, or nil.
        def convert(function, attachment)
          source, digest = source_and_digest(attachment)
          key = [function, digest]
          why = Interrupts.guarded(STOPPED_LOCK) { STOPPED[key] }
          raise Builtin.unreadable(attachment.filename, why) if why

          converted = FileStore::Native.public_send(function, source, Converters.queue)
          stopped(key, converted[:refusal]) if converted[:stopped]
          raise Builtin.unreadable(attachment.filename, converted[:refusal]) if converted[:stopped]

          converted[:text]
        rescue UnreadableDocumentError
          raise
        rescue WorkerError => e
          raise WorkerError, "#{attachment.filename} could not be read now: #{e.message}"
        rescue FileStore::Error
          # The core failed on this file: it stays unread, like one it refused.
          nil
        end

        # What the worker reads of +attachment+, and its SHA-256: a file on disk
        # (Converters::StoredIO) as it is, sent to the worker a piece at a time; else
        # its bytes.
        def source_and_digest(attachment)
          return [attachment.io, attachment.digest] if attachment.is_a?(Converters::StoredIO)

          bytes = attachment.content.to_s.b
          [bytes, Digest::SHA256.hexdigest(bytes)]
        end

        # Refuses +file+ before its bytes are read (an Active Storage blob is
        # downloaded whole) when it is past the size a conversion takes and the
        # converters the block gives, those that read its type, are all built-in: a
        # converter of the app's may take it.
        def refuse_too_large(file)
          why = Native.document_too_large(file.byte_size.to_i) or return
          chain = yield
          return if chain.empty? || !chain.all? { |converter| CONVERTERS.include?(converter) }

          raise Builtin.unreadable(file.filename, why)
        end

        def stopped(key, why)
          Interrupts.guarded(STOPPED_LOCK) do
            STOPPED[key] = why
            STOPPED.shift while STOPPED.size > STOPPED_KEPT
          end
        end

        # The error for a document named +name+ that stopped its worker for +why+.
        def unreadable(name, why)
          UnreadableDocumentError.new("#{name} could not be read: #{why}")
        end

        # Why +function+ reads no text from +bytes+, or nil when it does.
        #
        #   Converters::Builtin.refusal(:convert_office, File.binread("bomb.docx"))
        #   # => "the archive uncompresses to more than 209715200 bytes"
        def refusal(function, bytes)
          FileStore::Native.public_send(function, bytes.b)[:refusal]
        end
      end

      # Reads the text of PDFs locally, page by page under <tt>## Page N</tt>; on by
      # default. A PDF with no text (a scan) gives nil, so an OCR converter after it
      # can read it:
      #
      #   config.file_converters["application/pdf"] = [
      #     RubyLLM.file_store.converter.pdf,
      #     RubyLLM.file_store.converter.ocr(model: "mistral-ocr-latest")
      #   ]
      module PDF
        # Its name in the core (Native::CONVERTERS).
        NAME = 'pdf'

        module_function

        def call(attachment)
          Builtin.convert(:"convert_#{NAME}", attachment)
        end
      end

      # Reads Word, Excel and PowerPoint files (Office Open XML), OpenDocument files
      # (.odt, .ods, .odp, and flat .fodt, .fods, .fodp) and EPUB books locally:
      # paragraphs, lists and tables, then headers and footers, footnotes, endnotes
      # and comments; each sheet under <tt>## name</tt> (<tt>(hidden)</tt> when
      # hidden) with tab-separated rows and dates as ISO dates; each slide under
      # <tt>## Slide N</tt>; a book's chapters in reading order. On by default for
      # every type of TYPES; to read one of them otherwise:
      #
      #   config.file_converters[Converters::Office::TYPES.first] = ->(file) { MyReader.text(file.content) }
      module Office
        # The MIME types of the files it reads.
        TYPES = %w[
          application/vnd.openxmlformats-officedocument.wordprocessingml.document
          application/vnd.openxmlformats-officedocument.spreadsheetml.sheet
          application/vnd.openxmlformats-officedocument.presentationml.presentation
          application/vnd.oasis.opendocument.text
          application/vnd.oasis.opendocument.spreadsheet
          application/vnd.oasis.opendocument.presentation
          application/vnd.oasis.opendocument.text-flat-xml
          application/vnd.oasis.opendocument.spreadsheet-flat-xml
          application/vnd.oasis.opendocument.presentation-flat-xml
          application/epub+zip
        ].freeze
        # Its name in the core (Native::CONVERTERS).
        NAME = 'office'

        module_function

        def call(attachment)
          Builtin.convert(:"convert_#{NAME}", attachment)
        end
      end

      # Reads HTML locally as lines of text: no scripts, styles or hidden elements,
      # blocks on lines of their own, table cells separated by <tt> | </tt>. The
      # charset is found as a browser finds it (byte order mark, <tt><meta></tt>;
      # UTF-8 when valid, else windows-1252). A page with no text gives nil. On by
      # default; without it HTML is read as it is:
      #
      #   config.file_converters.delete("text/html")
      module HTML
        # Its name in the core (Native::CONVERTERS).
        NAME = 'html'

        module_function

        def call(attachment)
          Builtin.convert(:"convert_#{NAME}", attachment)
        end
      end

      module Builtin
        # The built-in converters, each with its core name as +NAME+.
        CONVERTERS = [PDF, Office, HTML].freeze
      end
    end
  end
end
