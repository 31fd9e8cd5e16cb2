# frozen_string_literal: true

# Counts ActiveStorage::Blob#download, which every read of a blob's bytes goes
# through (a store's read, ruby_llm's attachments, measuring a shared blob).
#
#   BlobDownloads.count!
#   before = BlobDownloads.count
module BlobDownloads
  class << self
    attr_accessor :count

    # Starts counting, once Active Storage is loaded.
    def count!
      ::ActiveStorage::Blob.prepend(self) unless ::ActiveStorage::Blob.include?(self)
    end
  end
  self.count = 0

  def download(...)
    BlobDownloads.count += 1
    super
  end
end
