namespace Concurrency.Messaging.Workers;

/// <summary>Options for <see cref="WorkerPool.Create(WorkerPoolOptions?)"/>.</summary>
public sealed record WorkerPoolOptions
{
    /// <summary>Gets how workers that are no longer needed are retired. Defaults to <see cref="WorkerRetirement.LeakyBucket"/>.</summary>
    public WorkerRetirement Retirement { get; init; } = WorkerRetirement.LeakyBucket;

    /// <summary>Gets how often the leaky bucket hands out a poison pill. Defaults to 1 second.</summary>
    public TimeSpan RetirementInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// Gets how long after a worker was created the leaky bucket hands out no pill: a pool that just grew needs its workers.
    /// Defaults to 10 seconds.
    /// </summary>
    public TimeSpan RetirementDelay { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Gets how long a worker waits for work before it exits under <see cref="WorkerRetirement.IdleTimeout"/>. Defaults to 10 seconds.</summary>
    public TimeSpan IdleTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Gets how many workers start with the pool and are never retired. Defaults to 0.</summary>
    public int MinWorkers { get; init; }

    /// <summary>
    /// Gets the most workers the pool runs at once. Below it a task never waits for a free worker: a post that finds none
    /// idle starts one. At it, tasks wait in the queue (counted in <see cref="WorkerPoolMetrics.TasksQueued"/>) and each worker
    /// that finishes a task takes the next. Defaults to <c>max(64, 8 × Environment.ProcessorCount)</c>: enough for blocking
    /// work, yet a burst cannot start a thread per task. Must be at least 1 and at least <see cref="MinWorkers"/>;
    /// <see cref="int.MaxValue"/> means no cap.
    /// </summary>
    public int MaxWorkers { get; init; } = Math.Max(64, 8 * Environment.ProcessorCount);

    /// <summary>Gets the clock that times retirement (a fake one in tests). Defaults to <see cref="TimeProvider.System"/>.</summary>
    public TimeProvider TimeProvider { get; init; } = TimeProvider.System;
}
