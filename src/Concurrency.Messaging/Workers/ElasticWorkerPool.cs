using System.Diagnostics;
using System.Reactive.Subjects;

namespace Concurrency.Messaging.Workers;

/// <summary>
/// The elastic worker pool: one lock over a queue of tasks and a list of parked workers, each worker parked on a signal of
/// its own. A post that finds no worker coming for its task wakes the longest-parked worker, or starts a new one; a worker
/// that finishes a task takes the next one from the queue without parking. Retirement follows <see cref="WorkerRetirement"/>.
/// </summary>
/// <remarks>
/// <para>
/// "No worker coming": <see cref="_claimed"/> counts workers started or woken for a task that have not yet looked at the
/// queue. While the queue holds no more tasks than that, every queued task has a worker on its way. A busy worker may take a
/// task first; the claimed worker then finds the queue shorter and parks again, which costs a wake-up and loses nothing.
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
    private readonly Queue<Action> _tasks = new();         // guarded by _gate
    private readonly LinkedList<PoolWorker> _parked = new(); // guarded by _gate: longest parked first
    private readonly ISubject<WorkerPoolFailure> _failures = Subject.Synchronize(new Subject<WorkerPoolFailure>());
    private readonly TaskCompletionSource _exited = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TimeProvider _time;
    private readonly WorkerRetirement _retirement;
    private readonly TimeSpan _retirementDelay;
    private readonly TimeSpan _idleTimeout;
    private readonly int _minWorkers;
    private readonly ITimer? _killer;   // the leaky bucket's timer; null under an idle timeout
    private int _alive;                 // guarded by _gate: threads started and not yet exited
    private int _claimed;               // guarded by _gate: workers in state Claimed (see remarks)
    private int _retiring;              // guarded by _gate: workers in state Retiring
    private bool _pillPending;          // guarded by _gate: a pill no parked worker could take; the next worker out of work takes it
    private long _lastCreatedAt;        // guarded by _gate: the clock's timestamp of the last worker created
    private int _nextId;                // guarded by _gate
    private bool _disposed;             // guarded by _gate: no more tasks, no more retirements
    private long _created;              // Interlocked
    private long _retired;              // Interlocked
    private long _completed;            // Interlocked
    private long _failed;               // Interlocked

    public ElasticWorkerPool(WorkerPoolOptions options)
    {
        _time = options.TimeProvider;
        _retirement = options.Retirement;
        _retirementDelay = options.RetirementDelay;
        _idleTimeout = options.IdleTimeout;
        _minWorkers = options.MinWorkers;
        _lastCreatedAt = _time.GetTimestamp();

        lock (_gate)
        {
            for (var i = 0; i < _minWorkers; i++)
            {
                StartUnderGate(CreateWorker(WorkerState.Running));
            }
        }

        if (_retirement == WorkerRetirement.LeakyBucket)
        {
            _killer = _time.CreateTimer(static pool => ((ElasticWorkerPool)pool!).HandOutPill(), this, options.RetirementInterval, options.RetirementInterval);
        }
    }

    public IObservable<WorkerPoolFailure> Failures => _failures;

    public WorkerPoolMetrics Metrics
    {
        get
        {
            lock (_gate)
            {
                return new WorkerPoolMetrics(
                    _alive,
                    _parked.Count,
                    Interlocked.Read(ref _created),
                    Interlocked.Read(ref _retired),
                    _tasks.Count,
                    Interlocked.Read(ref _completed),
                    Interlocked.Read(ref _failed));
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
            parked = TakeAllParked();
            if (_alive == 0)
            {
                _exited.TrySetResult();
            }
        }

        if (first)
        {
            _killer?.Dispose(); // a tick already under way finds the pool disposed and hands out nothing
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

            if (_tasks.Count + 1 > _claimed)
            {
                if (_parked.First is { } longest)
                {
                    wake = longest.Value;
                    Unpark(wake, WorkerState.Claimed);
                }
                else
                {
                    // Started under the gate and before the task is queued: if the thread cannot start, the post throws
                    // with nothing accepted and the counts undone. The new thread waits for the gate, then finds its task.
                    StartUnderGate(CreateWorker(WorkerState.Claimed));
                }
            }

            _tasks.Enqueue(work);
        }

        wake?.Wake.Set();
        return true;
    }

    /// <summary>The leaky bucket's tick: one worker is told to exit, unless the pool grew lately or is at its minimum.</summary>
    private void HandOutPill()
    {
        PoolWorker? victim = null;
        lock (_gate)
        {
            if (_disposed || _pillPending || _alive - _retiring <= _minWorkers || _time.GetElapsedTime(_lastCreatedAt) < _retirementDelay)
            {
                return;
            }

            if (_parked.First is { } longest)
            {
                victim = longest.Value;
                Unpark(victim, WorkerState.Retiring);
                Interlocked.Increment(ref _retired);
            }
            else
            {
                _pillPending = true;
            }
        }

        victim?.Wake.Set();
    }

    /// <summary>A parked worker's idle timer: it is told to exit if it has been parked the whole timeout.</summary>
    private void RetireIdle(PoolWorker worker)
    {
        lock (_gate)
        {
            if (_disposed || worker.State != WorkerState.Parked || _alive - _retiring <= _minWorkers)
            {
                return;
            }

            var idle = _time.GetElapsedTime(worker.ParkedAt);
            if (idle < _idleTimeout)
            {
                worker.IdleTimer!.Change(_idleTimeout - idle, Timeout.InfiniteTimeSpan); // an early tick: look again when the time is up
                return;
            }

            Unpark(worker, WorkerState.Retiring);
            Interlocked.Increment(ref _retired);
        }

        worker.Wake.Set();
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
                Interlocked.Increment(ref _failed);
                Report(new WorkerPoolFailure(worker.Name, exception));
            }

            Interlocked.Increment(ref _completed);
        }

        // Disposed before the worker counts as gone, so a shutdown that returns finds its timer and signal disposed.
        // Nobody sets the wake signal of a worker that is not parked, and its idle timer is only re-armed while parked.
        worker.Dispose();
        lock (_gate)
        {
            _alive--;
            if (worker.State == WorkerState.Retiring)
            {
                _retiring--;
            }

            if (_disposed && _alive == 0)
            {
                _exited.TrySetResult();
            }
        }
    }

    /// <summary>
    /// Tells the subscribers of <see cref="Failures"/>. A subscriber that throws has broken its contract; its exception is
    /// dropped here, because the pool has nowhere else to report it and must not lose the worker that was running.
    /// </summary>
    private void Report(WorkerPoolFailure failure)
    {
        try
        {
            _failures.OnNext(failure);
        }
        catch (Exception)
        {
            // dropped: see above
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

                if (worker.State == WorkerState.Claimed)
                {
                    _claimed--;
                    worker.State = WorkerState.Running;
                }

                if (worker.State == WorkerState.Running) // a worker still parked was not woken: it waits again
                {
                    if (_tasks.TryDequeue(out var task))
                    {
                        return task;
                    }

                    if (_disposed)
                    {
                        return null;
                    }

                    if (_pillPending)
                    {
                        _pillPending = false;
                        Interlocked.Increment(ref _retired);
                        return null;
                    }

                    Park(worker);
                }
            }

            worker.Wake.Wait(Timeout.InfiniteTimeSpan);
        }
    }

    private PoolWorker CreateWorker(WorkerState state)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "Workers are counted under the gate.");
        var worker = new PoolWorker(++_nextId, state);
        if (_retirement == WorkerRetirement.IdleTimeout)
        {
            worker.IdleTimer = _time.CreateTimer(w => RetireIdle((PoolWorker)w!), worker, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        }

        _alive++;
        if (state == WorkerState.Claimed)
        {
            _claimed++;
        }

        _pillPending = false; // the pool just grew: the pill meant for a smaller load is withdrawn
        _lastCreatedAt = _time.GetTimestamp();
        Interlocked.Increment(ref _created);
        return worker;
    }

    private void StartUnderGate(PoolWorker worker)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "A worker is started under the gate.");
        try
        {
            new Thread(() => Work(worker)) { IsBackground = true, Name = worker.Name }.Start();
        }
        catch
        {
            _alive--;
            if (worker.State == WorkerState.Claimed)
            {
                _claimed--;
            }

            Interlocked.Decrement(ref _created);
            worker.Dispose();
            throw;
        }
    }

    private void Park(PoolWorker worker)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "Parking is decided under the gate.");
        worker.State = WorkerState.Parked;
        worker.ParkedAt = _time.GetTimestamp();
        _parked.AddLast(worker.IdleNode);
        worker.IdleTimer?.Change(_idleTimeout, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Takes a parked worker off the idle list; the caller sets its wake signal after leaving the gate.</summary>
    private void Unpark(PoolWorker worker, WorkerState state)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread && worker.State == WorkerState.Parked, "Only a parked worker is taken off the list, under the gate.");
        _parked.Remove(worker.IdleNode);
        worker.State = state;
        if (state == WorkerState.Claimed)
        {
            _claimed++;
        }
        else if (state == WorkerState.Retiring)
        {
            _retiring++;
        }
    }

    private PoolWorker[] TakeAllParked()
    {
        var parked = new PoolWorker[_parked.Count];
        var i = 0;
        while (_parked.First is { } longest)
        {
            parked[i++] = longest.Value;
            Unpark(longest.Value, WorkerState.Running);
        }

        return parked;
    }
}
