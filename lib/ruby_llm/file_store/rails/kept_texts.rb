# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # The converted texts the Active Storage store keeps in its rows, read many at a
      # time for search_files (Tools::TextSource#prefetch).
      module KeptTexts # :nodoc:
        # How many files' kept texts one query reads.
        TEXT_BATCH = 100

        # The texts kept in the rows of +files+ (as this store listed them), by path: a
        # query for each TEXT_BATCH files instead of two for each, so search_files over
        # a chat of many documents does not make 20,000 queries. A file whose row
        # changed since it was listed (another digest) or that has no text kept yet is
        # left out, and read as before.
        def cached_texts(files)
          digests = files.to_h { |file| [file.path, file.digest] }
          digests.keys.each_slice(TEXT_BATCH).with_object({}) do |paths, texts|
            rows = db { @view.scope.where(path: paths).where.not(text: nil).pluck(:path, :digest, :text) }
            rows.each { |path, digest, text| texts[path] = text if digest && digests[path] == digest }
          end
        end
      end
    end
  end
end
