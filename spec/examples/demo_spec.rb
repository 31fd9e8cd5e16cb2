# frozen_string_literal: true

require 'open3'
require 'rbconfig'

RSpec.describe 'bin/demo' do
  it 'runs the main job to the end and shows what a chat gains' do
    root = File.expand_path('../..', __dir__)
    output, status = Open3.capture2e(RbConfig.ruby, '-I', File.join(root, 'lib'), File.join(root, 'examples/demo.rb'))
    expect(status).to be_success, output
    expect(output).to include('documents/report.pdf: ## Page 1')
      .and include('handbook.txt:287: Line 287: Remote work requires a manager approval renewed every 90 days.')
      .and include('[Showing lines 286-288 of 400. Read on with offset: 289.]')
      .and include('Edited handbook.txt: 1 place changed.')
      .and match(/bytes not resent: \d+\.\d%/)
  end
end
