using System.Diagnostics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Workers;

/// <summary>
/// The elastic worker pool: one lock over a queue of tasks and a list of parked workers, each worker parked on a signal of
/// its own. A post that finds no worker coming for its task wakes the longest-parked worker, or starts a new one while the
/// pool is under its cap, or else leaves the task queued; a worker that finishes a task takes the next one from the queue
/// without parking. Retirement follows <see cref="WorkerRetirement"/>.
/// </summary>
/// <remarks>
/// <para>
/// "No worker coming": <see cref="_claimed"/> counts workers started or woken for a task that have not yet looked at the
/// queue. While the queue holds no more tasks than that, every queued task has a worker on its way. A busy worker may take a
/// task first; the claimed worker then finds the queue shorter and parks again, which costs a wake-up and loses nothing.
/// </para>
/// <para>
/// The cap: <see cref="Serving"/> (workers alive less those retiring, which take no more tasks) never exceeds
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
    private readonly Queue<Action> _tasks = new();         // guarded by _gate
    private readonly LinkedList<PoolWorker> _parked = new(); // guarded by _gate: longest parked first
    private readonly ReportFeed<WorkerPoolFailure> _failures = new();
    private readonly TaskCompletionSource _exited = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TimeProvider _time;
    private readonly WorkerRetirement _retirement;
    private readonly TimeSpan _retirementDelay;
    private readonly TimeSpan _idleTimeout;
    private readonly int _minWorkers;
    private readonly int _maxWorkers;
    private readonly ITimer? _killer;   // the leaky bucket's timer; null under an idle timeout
    private int _alive;                 // guarded by _gate: threads started and not yet exited
    private int _claimed;               // guarded by _gate: workers in state Claimed (see remarks)
    private int _retiring;              // guarded by _gate: workers in state Retiring, pill takers included
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
        _maxWorkers = options.MaxWorkers;
        Debug.Assert(_minWorkers <= _maxWorkers, "WorkerPool.Create validates the options.");
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

        WorkerPoolInstruments.Live.Add(this);
    }

    public IObservable<WorkerPoolFailure> Failures => _failures.Observable;

    /// <summary>Gets the workers that take tasks: alive and not retiring. Guarded by <see cref="_gate"/>.</summary>
    private int Serving => _alive - _retiring;

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
                    Interlocked.Read(ref _failed),
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
            parked = TakeAllParked();
            if (_alive == 0)
            {
                _exited.TrySetResult();
            }
        }

        if (first)
        {
            _killer?.Dispose(); // a tick already under way finds the pool disposed and hands out nothing
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

            if (_tasks.Count + 1 > _claimed)
            {
                if (_parked.First is { } longest)
                {
                    wake = longest.Value;
                    Unpark(wake, WorkerState.Claimed);
                }
                else if (Serving < _maxWorkers)
                {
                    // Started under the gate and before the task is queued: if the thread cannot start, the post throws
                    // with nothing accepted and the counts undone. The new thread waits for the gate, then finds its task.
                    StartUnderGate(CreateWorker(WorkerState.Claimed));
                }
            }

            // At the cap with none parked, the task waits in the queue: every serving worker is busy and takes it next.
            _tasks.Enqueue(work);
            AssertInvariants();
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
            if (_disposed || _pillPending || Serving <= _minWorkers || _time.GetElapsedTime(_lastCreatedAt) < _retirementDelay)
            {
                return;
            }

            if (_parked.First is { } longest)
            {
                victim = longest.Value;
                Unpark(victim, WorkerState.Retiring);
                Interlocked.Increment(ref _retired);
                WorkerPoolInstruments.Count(WorkerPoolInstruments.WorkersRetired);
            }
            else
            {
                _pillPending = true;
            }

            AssertInvariants();
        }

        victim?.Wake.Set();
    }

    /// <summary>A parked worker's idle timer: it is told to exit if it has been parked the whole timeout.</summary>
    private void RetireIdle(PoolWorker worker)
    {
        lock (_gate)
        {
            if (_disposed || worker.State != WorkerState.Parked || Serving <= _minWorkers)
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
            WorkerPoolInstruments.Count(WorkerPoolInstruments.WorkersRetired);
            AssertInvariants();
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
                WorkerPoolInstruments.Count(WorkerPoolInstruments.TasksFailed);
                _failures.Report(new WorkerPoolFailure(worker.Name, exception)); // a subscriber's exception is counted and dropped
            }

            Interlocked.Increment(ref _completed);
            WorkerPoolInstruments.Count(WorkerPoolInstruments.TasksCompleted);
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

                if (worker.State == WorkerState.Claimed)
                {
                    _claimed--;
                    worker.State = WorkerState.Running;
                }

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

                    if (_pillPending)
                    {
                        // Counted as retiring from now, not from its exit: it takes no more tasks, so a post meanwhile must
                        // not count it toward the cap (with a cap of 1 its task would wait for nobody), nor may the next
                        // pill count it toward the minimum.
                        _pillPending = false;
                        worker.State = WorkerState.Retiring;
                        _retiring++;
                        Interlocked.Increment(ref _retired);
                        WorkerPoolInstruments.Count(WorkerPoolInstruments.WorkersRetired);
                        AssertInvariants();
                        return null;
                    }

                    Park(worker); // the queue is empty: nothing parks while a task is queued
                    AssertInvariants();
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
            WorkerPoolInstruments.Count(WorkerPoolInstruments.WorkersCreated);
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
        Debug.Assert(_gate.IsHeldByCurrentThread && _tasks.Count == 0, "Parking is decided under the gate, with no task queued.");
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

    /// <summary>Checks, under the gate, what the remarks promise: the cap holds, and a task with no worker coming is queued only at the cap.</summary>
    [Conditional("DEBUG")]
    private void AssertInvariants()
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "The invariants hold under the gate.");
        Debug.Assert(_claimed >= 0 && _retiring >= 0 && _retiring <= _alive, "The counts are consistent.");
        Debug.Assert(Serving <= _maxWorkers, "No more workers serve than the cap.");
        Debug.Assert(_parked.Count <= Serving - _claimed, "Parked workers are serving and not claimed.");
        Debug.Assert(
            _tasks.Count <= _claimed || (_parked.Count == 0 && Serving == _maxWorkers),
            "A task with no worker coming waits only at the cap, with none parked.");
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
