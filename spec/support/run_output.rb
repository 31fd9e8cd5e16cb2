# frozen_string_literal: true

# What a run's result shows between the fences of one of its streams, or nil.
module RunOutput
  def stream_in(text, name = 'stdout')
    text[/^#{name}, between the two lines (---\h{16}---):\n\1\n(.*?)\n\1$/m, 2]
  end
end

RSpec.configure { |config| config.include RunOutput }
