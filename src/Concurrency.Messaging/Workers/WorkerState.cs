namespace Concurrency.Messaging.Workers;

/// <summary>Where a worker of an <see cref="ElasticWorkerPool"/> stands; changed only under the pool's gate.</summary>
internal enum WorkerState
{
    /// <summary>Running a task, or about to look at the queue for one.</summary>
    Running,

    /// <summary>Parked in the roster's idle list, waiting for its wake signal.</summary>
    Parked,

    /// <summary>Started or woken for a queued task and not yet back at the queue: counted in <see cref="WorkerRoster.Claimed"/>.</summary>
    Claimed,

    /// <summary>Took a poison pill or timed out idle: it exits at its next look.</summary>
    Retiring,
}
