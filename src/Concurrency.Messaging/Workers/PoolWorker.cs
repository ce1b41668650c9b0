using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Workers;

/// <summary>One worker of an <see cref="ElasticWorkerPool"/>: a dedicated background thread and what the pool tracks about it.</summary>
internal sealed class PoolWorker : IDisposable
{
    public PoolWorker(int id, WorkerState state)
    {
        Name = $"Elastic worker {id}";
        IdleNode = new LinkedListNode<PoolWorker>(this);
        State = state;
    }

    /// <summary>Gets the thread's name, also given in <see cref="WorkerPoolFailure.Worker"/>.</summary>
    public string Name { get; }

    /// <summary>Gets the node that puts this worker in the roster's idle list, made once so parking allocates nothing.</summary>
    public LinkedListNode<PoolWorker> IdleNode { get; }

    /// <summary>Gets the signal the worker parks on; set by whoever takes it off the idle list.</summary>
    public WakeSignal Wake { get; } = new();

    /// <summary>Gets or sets where the worker stands. Guarded by the pool's gate.</summary>
    public WorkerState State { get; set; }

    /// <summary>Gets or sets the pool clock's timestamp of the worker's last park. Guarded by the pool's gate.</summary>
    public long ParkedAt { get; set; }

    /// <summary>
    /// Gets or sets the timer that retires the worker once idle too long, under <see cref="WorkerRetirement.IdleTimeout"/>
    /// only. Set before the thread starts; armed by the worker as it parks, under the pool's gate.
    /// </summary>
    public ITimer? IdleTimer { get; set; }

    public void Dispose()
    {
        IdleTimer?.Dispose();
        Wake.Dispose();
    }
}
