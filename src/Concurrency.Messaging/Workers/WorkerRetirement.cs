namespace Concurrency.Messaging.Workers;

/// <summary>How an elastic worker pool retires the workers a spike of load created.</summary>
public enum WorkerRetirement
{
    /// <summary>
    /// A leaky bucket: every <see cref="WorkerPoolOptions.RetirementInterval"/> the pool hands one worker a poison pill, unless
    /// a worker was created within <see cref="WorkerPoolOptions.RetirementDelay"/>. The worker that takes it exits. The pool
    /// always shrinks once the load falls, however the remaining tasks are spread over the workers.
    /// </summary>
    LeakyBucket,

    /// <summary>
    /// A worker exits after it has waited <see cref="WorkerPoolOptions.IdleTimeout"/> for work. Idle workers are handed tasks
    /// first in, first out, so a trickle of tasks visits every idle worker in turn and none of them ever waits that long:
    /// under spread load the pool does not shrink. Kept to show why the leaky bucket exists.
    /// </summary>
    IdleTimeout,
}
