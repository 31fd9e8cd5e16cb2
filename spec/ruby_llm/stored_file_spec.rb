# frozen_string_literal: true

RSpec.describe RubyLLM::StoredFile do
  def file(size, **options, &)
    described_class.new(path: 'reports/q3.pdf', byte_size: size, content_type: 'application/pdf', **options, &)
  end

  it 'tells its file name' do
    expect(file(1).filename).to eq('q3.pdf')
  end

  it 'gives sizes for people' do
    sizes = [0, 1, 812, 1024, 1536, 2_202_010, 5 * (1024**3)].map { |size| file(size).human_size }
    expect(sizes).to eq(['0 bytes', '1 byte', '812 bytes', '1 KB', '1.5 KB', '2.1 MB', '5 GB'])
  end

  it 'inspects as the guide shows' do
    expect(file(812).inspect)
      .to eq('#<RubyLLM::StoredFile path: "reports/q3.pdf", byte_size: 812, content_type: "application/pdf">')
  end

  it 'loads a digest once, when first asked' do
    calls = 0
    lazy = file(3) do
      calls += 1
      'abc123'
    end
    expect(calls).to eq(0)
    2.times { expect(lazy.digest).to eq('abc123') }
    expect(calls).to eq(1)
  end

  it 'equals a file with the same path, size, type and digest' do
    expect(file(3, digest: 'a')).to eq(file(3, digest: 'a'))
    expect(file(3, digest: 'a')).not_to eq(file(3, digest: 'b'))
  end
end
