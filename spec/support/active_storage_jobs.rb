# frozen_string_literal: true

# The jobs the Rails specs enqueue on Active Job's test adapter (Active Storage's purge
# jobs), performed when an example asks, as a job adapter would perform them.
module ActiveStorageJobs
  module_function

  # Performs every job enqueued so far, and those they enqueue.
  def perform_enqueued
    adapter = ActiveJob::Base.queue_adapter
    until adapter.enqueued_jobs.empty?
      job = adapter.enqueued_jobs.shift
      ActiveJob::Base.execute(job.stringify_keys.merge('job_class' => job[:job].name))
    end
  end
end
