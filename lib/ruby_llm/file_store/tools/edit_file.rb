# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # edit_file: replaces one exact span of a file the model has read, changing no
      # other byte.
      class EditFile < Base
        tool 'edit_file', offered: :by_default, order: 5
        description 'Replaces old_text with new_text in a file of this chat. old_text must match exactly one place ' \
                    '(include surrounding lines to pick one), or pass replace_all: true. Read the file first.'
        argument :path, type: 'string', description: 'The file to edit.'
        argument :old_text, type: 'string',
                            description: 'The exact text to replace, as read_file shows it (without the line numbers).'
        argument :new_text, type: 'string', description: 'The text to put in its place.'
        argument :replace_all, type: 'boolean', required: false, description: 'Replace every place old_text matches.'

        # Replaces +old_text+ with +new_text+ in +path+ (everywhere with +replace_all+).
        def execute(path:, old_text:, new_text:, replace_all: nil)
          store.with_lock do
            file = store.find(path)
            check_changeable(file)
            # Refused by its size before it is read: a 1 GB file is never loaded.
            refuse_large(file.path, file.byte_size, now: true)
            edited = Native.edit(store.read(file.path), old_text: old_text.to_s, new_text: new_text.to_s,
                                                        replace_all: flag(replace_all), max_size: store.max_file_size)
            content = edited[:content]
            refuse_large(file.path, content.bytesize)
            wrote(store.write(file.path, content, content_type: file.content_type))
            edited_note(file.path, edited)
          end
        end

        private

        def edited_note(path, edited)
          places = edited[:replacements] == 1 ? '1 place' : "#{edited[:replacements]} places"
          "Edited #{path}: #{places} changed.\n#{edited[:changed].chomp}"
        end
      end
    end
  end
end
