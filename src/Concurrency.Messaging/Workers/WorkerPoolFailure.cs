namespace Concurrency.Messaging.Workers;

/// <summary>A posted task that threw, reported on <see cref="IWorkerPool.Failures"/>; the worker that ran it carries on.</summary>
/// <param name="Worker">The name of the worker thread that ran the task.</param>
/// <param name="Exception">What the task threw.</param>
public sealed record WorkerPoolFailure(string Worker, Exception Exception);
