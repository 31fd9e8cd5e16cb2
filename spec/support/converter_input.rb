# frozen_string_literal: true

# A file as the converter specs hand it to a converter: the readers of a
# RubyLLM::Attachment that converters use, with no content type given.
ConverterInput = Struct.new(:content, :filename, :mime_type, keyword_init: true)
