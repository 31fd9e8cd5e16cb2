# frozen_string_literal: true

require 'cgi'
require 'open3'

# LibreOffice's text of a workbook in the workbook's own sheet order.
module SheetOrder
  # Calc writes a CSV per sheet, named after it (book-Sheet.csv): put them in
  # the workbook's order, as its own file lists its sheets.
  def in_sheet_order(path, files)
    names = sheet_names(path)
    files.sort_by do |file|
      name = File.basename(file, '.*').delete_prefix("#{File.basename(path, '.*')}-")
      names.index(name) || names.size
    end
  end

  def sheet_names(path)
    part, pattern = { '.xlsx' => ['xl/workbook.xml', /<sheet [^>]*name="([^"]*)"/],
                      '.ods' => ['content.xml', /<table:table [^>]*table:name="([^"]*)"/] }[File.extname(path)]
    return [] unless part

    xml = Open3.capture2('unzip', '-p', path, part).first
    xml.scan(pattern).flatten.map { |name| CGI.unescapeHTML(name) }
  end
end
