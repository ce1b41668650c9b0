using System.Diagnostics;

namespace Concurrency.Messaging.Workers;

/// <summary>
/// How an <see cref="ElasticWorkerPool"/> shrinks (<see cref="WorkerRetirement"/>): the leaky bucket's timer and its
/// pending pill, or the workers' idle timers. It never retires below <see cref="WorkerPoolOptions.MinWorkers"/>, and it
/// retires through the pool's <see cref="WorkerRoster"/>.
/// </summary>
/// <remarks>
/// Guarded by the pool's gate, as the roster is: the pool calls every member but <see cref="Dispose"/> under it, and the
/// timer callbacks take it. A timer that fires after <see cref="Stop"/> finds the retirement stopped and retires nobody.
/// </remarks>
internal sealed class PoolRetirement : IDisposable
{
    private readonly Lock _gate; // the pool's
    private readonly WorkerRoster _roster;
    private readonly TimeProvider _time;
    private readonly WorkerRetirement _policy;
    private readonly TimeSpan _delay;
    private readonly TimeSpan _idleTimeout;
    private readonly int _minWorkers;
    private readonly TimeSpan _interval;
    private ITimer? _killer;          // the leaky bucket's timer, made by Start; null before it and under an idle timeout
    private bool _pillPending;        // guarded by _gate: a pill no parked worker could take; the next worker out of work takes it
    private long _lastCreatedAt;      // guarded by _gate: the clock's timestamp of the last worker created
    private bool _stopped;            // guarded by _gate: the pool was disposed; no more retirements

    public PoolRetirement(WorkerPoolOptions options, Lock gate, WorkerRoster roster)
    {
        _gate = gate;
        _roster = roster;
        _time = options.TimeProvider;
        _policy = options.Retirement;
        _delay = options.RetirementDelay;
        _idleTimeout = options.IdleTimeout;
        _minWorkers = options.MinWorkers;
        _interval = options.RetirementInterval;
        _lastCreatedAt = _time.GetTimestamp();
    }

    /// <summary>
    /// Once, by the pool's constructor after its minimum workers started (so that a start that throws leaves no timer
    /// behind, the pool never being returned to be disposed): the leaky bucket's timer begins to tick.
    /// </summary>
    public void Start()
    {
        Debug.Assert(_killer is null, "The retirement starts once.");
        if (_policy == WorkerRetirement.LeakyBucket)
        {
            _killer = _time.CreateTimer(static retirement => ((PoolRetirement)retirement!).HandOutPill(), this, _interval, _interval);
        }
    }

    /// <summary>Under the gate, as the pool creates a worker: a pill meant for a smaller load is withdrawn.</summary>
    public void Created(PoolWorker worker)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "Workers are created under the gate.");
        if (_policy == WorkerRetirement.IdleTimeout)
        {
            worker.IdleTimer = _time.CreateTimer(w => RetireIdle((PoolWorker)w!), worker, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        }

        _pillPending = false;
        _lastCreatedAt = _time.GetTimestamp();
    }

    /// <summary>Under the gate, as a worker parks: its idle time starts.</summary>
    public void Parked(PoolWorker worker)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread && worker.State == WorkerState.Parked, "A worker parks under the gate.");
        worker.ParkedAt = _time.GetTimestamp();
        worker.IdleTimer?.Change(_idleTimeout, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Under the gate, by a worker out of work: retires it if a pill is pending.</summary>
    /// <returns>Whether the worker took the pill and must exit.</returns>
    public bool TakePendingPill(PoolWorker worker)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "A pill is taken under the gate.");
        if (!_pillPending)
        {
            return false;
        }

        _pillPending = false;
        _roster.Retire(worker);
        return true;
    }

    /// <summary>Under the gate, as the pool is disposed: no more retirements.</summary>
    public void Stop()
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "Retirement stops under the gate.");
        _stopped = true;
    }

    /// <summary>Stops the leaky bucket's timer; called once, after <see cref="Stop"/>, outside the gate.</summary>
    public void Dispose() => _killer?.Dispose(); // a tick already under way finds the retirement stopped and hands out nothing

    /// <summary>The leaky bucket's tick: one worker is told to exit, unless the pool grew lately or is at its minimum.</summary>
    private void HandOutPill()
    {
        PoolWorker? victim;
        lock (_gate)
        {
            if (_stopped || _pillPending || _roster.Serving <= _minWorkers || _time.GetElapsedTime(_lastCreatedAt) < _delay)
            {
                return;
            }

            victim = _roster.LongestParked;
            if (victim is not null)
            {
                _roster.Retire(victim);
            }
            else
            {
                _pillPending = true;
            }

            _roster.AssertInvariants();
        }

        victim?.Wake.Set();
    }

    /// <summary>A parked worker's idle timer: it is told to exit if it has been parked the whole timeout.</summary>
    private void RetireIdle(PoolWorker worker)
    {
        lock (_gate)
        {
            if (_stopped || worker.State != WorkerState.Parked || _roster.Serving <= _minWorkers)
            {
                return;
            }

            var idle = _time.GetElapsedTime(worker.ParkedAt);
            if (idle < _idleTimeout)
            {
                worker.IdleTimer!.Change(_idleTimeout - idle, Timeout.InfiniteTimeSpan); // an early tick: look again when the time is up
                return;
            }

            _roster.Retire(worker);
            _roster.AssertInvariants();
        }

        worker.Wake.Set();
    }
}
