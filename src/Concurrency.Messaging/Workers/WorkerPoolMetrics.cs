namespace Concurrency.Messaging.Workers;

/// <summary>A snapshot of an elastic worker pool's counters, taken at one instant.</summary>
/// <param name="WorkersAlive">Worker threads that have not exited yet, retiring ones included.</param>
/// <param name="WorkersIdle">Workers parked, waiting for a task.</param>
/// <param name="WorkersCreated">Workers created since the pool started.</param>
/// <param name="WorkersRetired">Workers that took a poison pill or timed out idle (a worker that exits because the pool
/// was disposed is not counted).</param>
/// <param name="TasksQueued">Tasks submitted and not yet taken by a worker: those a worker is on its way to, and at the
/// cap (<see cref="WorkerPoolOptions.MaxWorkers"/>) those waiting for a busy worker to finish.</param>
/// <param name="TasksCompleted">Tasks that ran to the end, thrown ones included.</param>
/// <param name="TasksFailed">Tasks posted with <see cref="IWorkerPool.Post(Action)"/> or <see cref="IWorkerPool.TryPost(Action)"/>
/// that threw; each was reported on <see cref="IWorkerPool.Failures"/>. A <c>RunAsync</c> task that throws faults its own
/// task instead and is not counted here.</param>
/// <param name="SubscriberErrors">Failures a subscriber of <see cref="IWorkerPool.Failures"/> threw on; each such exception
/// was dropped, so that it could not end the worker or the process.</param>
public sealed record WorkerPoolMetrics(
    int WorkersAlive,
    int WorkersIdle,
    long WorkersCreated,
    long WorkersRetired,
    int TasksQueued,
    long TasksCompleted,
    long TasksFailed,
    long SubscriberErrors);
