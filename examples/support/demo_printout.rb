# frozen_string_literal: true

require_relative 'request_summary'

# How the demo prints a question, the requests it took and what each carried, and
# the bytes of both conversations side by side. Each asked question is an Ask
# (question, attachment, requests, answer); a request is { body:, bytes: } as the
# provider received it.
module DemoPrintout
  private

  def show(asked)
    puts "\nQ: #{asked.question}#{" (with #{File.basename(asked.attachment)})" if asked.attachment}"
    asked.requests.each { |request| show_request(request) }
    puts "A: #{asked.answer.to_s.gsub(/\s+/, ' ')[0, 200]}"
  end

  def show_request(request)
    summary = RequestSummary.new(request[:body] || {})
    count, bytes = summary.tools
    @number = (@number || 0) + 1
    puts "  request #{@number}: #{RequestSummary.number(request[:bytes])} bytes " \
         "(#{count} tool definition#{'s' unless count == 1}: #{RequestSummary.number(bytes)} bytes)"
    summary.lines.each { |line| puts "    #{line}" }
  end

  def section(title)
    @number = 0
    puts "\n== #{title}"
  end

  def compare(without, with)
    section('Bytes sent for each question, from the request bodies')
    puts format('%-9<q>s %14<without>s %14<with>s %9<smaller>s', q: 'question', without: 'without store',
                                                                 with: 'with store', smaller: 'smaller')
    without.zip(with).each_with_index do |(plain, stored), index|
      row((index + 1).to_s, bytes(plain.requests), bytes(stored.requests))
    end
    row('total', without.sum { |asked| bytes(asked.requests) }, with.sum { |asked| bytes(asked.requests) })
  end

  def bytes(requests)
    requests.sum { |request| request[:bytes] }
  end

  def row(label, plain, stored)
    puts format('%-9<q>s %14<without>s %14<with>s %8.1<smaller>f%%', q: label, without: RequestSummary.number(plain),
                                                                     with: RequestSummary.number(stored),
                                                                     smaller: 100.0 * (plain - stored) / plain)
  end
end
