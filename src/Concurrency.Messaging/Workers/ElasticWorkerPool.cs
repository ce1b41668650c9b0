using System.Diagnostics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Workers;

/// <summary>
/// The elastic worker pool: one lock over a queue of tasks and a list of parked workers, each worker parked on a signal of
/// its own. A post that finds no worker coming for its task wakes the longest-parked worker, or starts a new one while the
/// pool is under its cap, or else leaves the task queued; a worker that finishes a task takes the next one from the queue
/// without parking. Retirement follows <see cref="WorkerRetirement"/>, in <see cref="PoolRetirement"/>; the workers and their
/// counts are kept in a <see cref="WorkerRoster"/>. The three share the pool's one lock, <see cref="_gate"/>.
/// </summary>
/// <remarks>
/// <para>
/// "No worker coming": <see cref="WorkerRoster.Claimed"/> counts workers started or woken for a task that have not yet looked at the
/// queue. While the queue holds no more tasks than that, every queued task has a worker on its way. A busy worker may take a
/// task first; the claimed worker then finds the queue shorter and parks again, which costs a wake-up and loses nothing.
/// </para>
/// <para>
/// The cap: <see cref="WorkerRoster.Serving"/> (workers alive less those retiring, which take no more tasks) never exceeds
/// <see cref="_maxWorkers"/>. At the cap a post that finds no worker coming queues its task without a worker for it; that
/// loses nothing, because no worker parks while a task is queued, so one of the busy workers takes it when it finishes. A
/// queued task with no worker coming therefore means the pool is at its cap with none parked (<see cref="AssertInvariants"/>),
/// and under the cap a task never waits for a worker. Threads alive may exceed the cap by workers retiring, briefly.
/// </para>
/// <para>
/// Parked workers are woken first in, first out, as a Go channel hands a value to its longest-waiting receiver. That spreads a
/// trickle of tasks over every parked worker, which is what defeats an idle timeout and what the leaky bucket is for.
/// </para>
/// </remarks>
internal sealed class ElasticWorkerPool : IWorkerPool
{
    [ThreadStatic]
    private static ElasticWorkerPool? t_running; // the pool whose worker this thread is: its Dispose must not wait for itself

    private readonly Lock _gate = new();
    private readonly Queue<Action> _tasks = new(); // guarded by _gate
    private readonly WorkerRoster _roster;         // guarded by _gate
    private readonly PoolRetirement _retirement;   // guarded by _gate, but for its timers, which take it
    private readonly ReportFeed<WorkerPoolFailure> _failures = new();
    private readonly TaskCompletionSource _exited = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly int _maxWorkers;
    private EventCount _completed = new(WorkerPoolInstruments.TasksCompleted);
    private EventCount _failed = new(WorkerPoolInstruments.TasksFailed);
    private bool _disposed; // guarded by _gate: no more tasks, no more retirements

    public ElasticWorkerPool(WorkerPoolOptions options)
    {
        _maxWorkers = options.MaxWorkers;
        Debug.Assert(options.MinWorkers <= _maxWorkers, "WorkerPool.Create validates the options.");
        _roster = new WorkerRoster(_gate);
        _retirement = new PoolRetirement(options, _gate, _roster);
        lock (_gate)
        {
            for (var i = 0; i < options.MinWorkers; i++)
            {
                StartWorker(WorkerState.Running);
            }
        }

        _retirement.Start();

        WorkerPoolInstruments.Live.Add(this);
    }

    public IObservable<WorkerPoolFailure> Failures => _failures.Observable;

    public WorkerPoolMetrics Metrics
    {
        get
        {
            lock (_gate)
            {
                return new WorkerPoolMetrics(
                    _roster.Alive,
                    _roster.Parked,
                    _roster.Created,
                    _roster.Retired,
                    _tasks.Count,
                    _completed.Read(),
                    _failed.Read(),
                    _failures.SubscriberErrors);
            }
        }
    }

    public void Post(Action work)
    {
        if (!TryPost(work))
        {
            throw new ObjectDisposedException(nameof(IWorkerPool), "The worker pool was disposed; it accepts no more tasks.");
        }
    }

    public bool TryPost(Action work)
    {
        ArgumentNullException.ThrowIfNull(work);
        return Enqueue(work);
    }

    public Task RunAsync(Action work, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(work);
        return RunAsync(() =>
        {
            work();
            return true;
        }, cancellationToken);
    }

    public Task<T> RunAsync<T>(Func<T> work, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(work);
        var run = new PoolRun<T>(work, cancellationToken);
        if (!Enqueue(run.Execute))
        {
            run.Abandon();
            throw new ObjectDisposedException(nameof(IWorkerPool), "The worker pool was disposed; it accepts no more tasks.");
        }

        return run.Task;
    }

    public async Task ShutdownAsync(CancellationToken cancellationToken = default)
    {
        PoolWorker[] parked;
        bool first;
        lock (_gate)
        {
            first = !_disposed;
            _disposed = true;
            _retirement.Stop();
            parked = _roster.TakeAllParked();
            if (_roster.Alive == 0)
            {
                _exited.TrySetResult();
            }
        }

        if (first)
        {
            _retirement.Dispose();
            WorkerPoolInstruments.Live.Remove(this);
        }

        foreach (var worker in parked)
        {
            worker.Wake.Set();
        }

        await _exited.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    public async ValueTask DisposeAsync() => await ShutdownAsync().ConfigureAwait(false);

    /// <summary>Shuts the pool down and waits for its workers; called from one of its own workers, it does not wait (that worker would wait for itself).</summary>
    public void Dispose()
    {
        var shutdown = ShutdownAsync();
        if (t_running != this)
        {
            shutdown.GetAwaiter().GetResult();
        }
    }

    private bool Enqueue(Action work)
    {
        PoolWorker? wake = null;
        lock (_gate)
        {
            if (_disposed)
            {
                return false;
            }

            if (_tasks.Count + 1 > _roster.Claimed)
            {
                wake = _roster.LongestParked;
                if (wake is not null)
                {
                    _roster.Claim(wake);
                }
                else if (_roster.Serving < _maxWorkers)
                {
                    // Started under the gate and before the task is queued: if the thread cannot start, the post throws
                    // with nothing accepted and the counts undone. The new thread waits for the gate, then finds its task.
                    StartWorker(WorkerState.Claimed);
                }
            }

            // At the cap with none parked, the task waits in the queue: every serving worker is busy and takes it next.
            _tasks.Enqueue(work);
            AssertInvariants();
        }

        wake?.Wake.Set();
        return true;
    }

    private void Work(PoolWorker worker)
    {
        t_running = this;
        while (Next(worker) is { } work)
        {
            try
            {
                work();
            }
            catch (Exception exception) // reported, never allowed to end the worker
            {
                _failed.Add();
                _failures.Report(new WorkerPoolFailure(worker.Name, exception)); // a subscriber's exception is counted and dropped
            }

            _completed.Add();
        }

        // Disposed before the worker counts as gone, so a shutdown that returns finds its timer and signal disposed.
        // Nobody sets the wake signal of a worker that is not parked, and its idle timer is only re-armed while parked.
        worker.Dispose();
        lock (_gate)
        {
            _roster.Exit(worker);
            if (_disposed && _roster.Alive == 0)
            {
                _exited.TrySetResult();
            }

            AssertInvariants();
        }
    }

    /// <summary>Takes the worker's next task, parking while there is none.</summary>
    /// <returns>The task, or <see langword="null"/> when the worker must exit.</returns>
    private Action? Next(PoolWorker worker)
    {
        while (true)
        {
            lock (_gate)
            {
                if (worker.State == WorkerState.Retiring)
                {
                    return null;
                }

                _roster.Arrive(worker);
                if (worker.State == WorkerState.Running) // a worker still parked was not woken: it waits again
                {
                    if (_tasks.TryDequeue(out var task))
                    {
                        AssertInvariants();
                        return task;
                    }

                    if (_disposed)
                    {
                        return null;
                    }

                    if (_retirement.TakePendingPill(worker))
                    {
                        AssertInvariants();
                        return null;
                    }

                    // The queue is empty: nothing parks while a task is queued.
                    Debug.Assert(_tasks.Count == 0, "Parking is decided with no task queued.");
                    _roster.Park(worker);
                    _retirement.Parked(worker);
                    AssertInvariants();
                }
            }

            worker.Wake.Wait(Timeout.InfiniteTimeSpan);
        }
    }

    /// <summary>Starts a worker under the gate; if its thread cannot start, throws with the worker uncounted.</summary>
    private void StartWorker(WorkerState state)
    {
        var worker = _roster.Add(state);
        _retirement.Created(worker); // the pool just grew: a pill meant for a smaller load is withdrawn
        _roster.Start(worker, Work);
    }

    /// <summary>Checks, under the gate, what the remarks promise: the cap holds, and a task with no worker coming is queued only at the cap.</summary>
    [Conditional("DEBUG")]
    private void AssertInvariants()
    {
        _roster.AssertInvariants();
        Debug.Assert(_roster.Serving <= _maxWorkers, "No more workers serve than the cap.");
        Debug.Assert(
            _tasks.Count <= _roster.Claimed || (_roster.Parked == 0 && _roster.Serving == _maxWorkers),
            "A task with no worker coming waits only at the cap, with none parked.");
    }
}
