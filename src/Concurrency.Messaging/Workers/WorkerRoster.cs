using System.Diagnostics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Workers;

/// <summary>
/// The workers of an <see cref="ElasticWorkerPool"/>, counted by <see cref="WorkerState"/>: the threads alive, the parked
/// ones in the order they parked, the claimed and the retiring. It moves a worker from state to state and keeps the counts
/// with it; the pool decides the moves (its hand-off) and so does <see cref="PoolRetirement"/>.
/// </summary>
/// <remarks>
/// Guarded by the pool's gate: every member but <see cref="Created"/> and <see cref="Retired"/> (Interlocked counts) expects
/// it held, and the pool's workers, posters and retirement timers take it before they call one.
/// </remarks>
internal sealed class WorkerRoster
{
    private readonly Lock _gate;                             // the pool's; guards everything here
    private readonly LinkedList<PoolWorker> _parked = new(); // longest parked first
    private EventCount _created = new(WorkerPoolInstruments.WorkersCreated); // counted once the worker's thread started
    private EventCount _retired = new(WorkerPoolInstruments.WorkersRetired);
    private int _nextId;

    public WorkerRoster(Lock gate) => _gate = gate;

    /// <summary>Gets the threads started and not yet exited.</summary>
    public int Alive { get; private set; }

    /// <summary>Gets the workers in state <see cref="WorkerState.Claimed"/>: started or woken for a task, not yet at the queue.</summary>
    public int Claimed { get; private set; }

    /// <summary>Gets the workers in state <see cref="WorkerState.Retiring"/>, pill takers included.</summary>
    public int Retiring { get; private set; }

    /// <summary>Gets the workers that take tasks: alive and not retiring.</summary>
    public int Serving => Alive - Retiring;

    /// <summary>Gets the workers parked, waiting for their wake signal.</summary>
    public int Parked => _parked.Count;

    /// <summary>Gets the worker parked longest, or null when none is.</summary>
    public PoolWorker? LongestParked => _parked.First?.Value;

    /// <summary>Gets the workers whose thread started, ever. Read without the gate.</summary>
    public long Created => _created.Read();

    /// <summary>Gets the workers told to retire, ever. Read without the gate.</summary>
    public long Retired => _retired.Read();

    /// <summary>Counts a new worker in <paramref name="state"/> (Running or Claimed); <see cref="Start"/> starts its thread.</summary>
    public PoolWorker Add(WorkerState state)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread && state is WorkerState.Running or WorkerState.Claimed, "A worker is counted under the gate, and starts running or claimed.");
        var worker = new PoolWorker(++_nextId, state);
        Alive++;
        if (state == WorkerState.Claimed)
        {
            Claimed++;
        }

        return worker;
    }

    /// <summary>
    /// Starts the thread of a worker <see cref="Add"/> counted, running <paramref name="run"/>; if the thread cannot start,
    /// throws with the worker uncounted and disposed. The new thread waits for the gate before it looks at anything.
    /// </summary>
    public void Start(PoolWorker worker, Action<PoolWorker> run)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "A worker is started under the gate.");
        try
        {
            new Thread(() => run(worker)) { IsBackground = true, Name = worker.Name }.Start();
        }
        catch
        {
            Alive--;
            if (worker.State == WorkerState.Claimed)
            {
                Claimed--;
            }

            worker.Dispose();
            throw;
        }

        _created.Add();
    }

    /// <summary>A claimed worker has reached the queue: it runs from now on.</summary>
    public void Arrive(PoolWorker worker)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "A worker arrives under the gate.");
        if (worker.State == WorkerState.Claimed)
        {
            Claimed--;
            worker.State = WorkerState.Running;
        }
    }

    /// <summary>Parks a running worker last in line; it then waits for its wake signal.</summary>
    public void Park(PoolWorker worker)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread && worker.State == WorkerState.Running, "A running worker parks, under the gate.");
        worker.State = WorkerState.Parked;
        _parked.AddLast(worker.IdleNode);
    }

    /// <summary>Takes a parked worker off the idle list for a queued task; the caller sets its wake signal after leaving the gate.</summary>
    public void Claim(PoolWorker worker)
    {
        Unpark(worker);
        worker.State = WorkerState.Claimed;
        Claimed++;
    }

    /// <summary>
    /// Tells a parked or running worker to exit at its next look. It counts as retiring from now, not from its exit: it
    /// takes no more tasks, so it must not count toward the cap, nor toward the minimum that retirement keeps. A parked
    /// one is taken off the idle list; the caller sets its wake signal after leaving the gate.
    /// </summary>
    public void Retire(PoolWorker worker)
    {
        if (worker.State == WorkerState.Parked)
        {
            Unpark(worker);
        }

        Debug.Assert(_gate.IsHeldByCurrentThread && worker.State == WorkerState.Running, "A parked or running worker retires, under the gate.");
        worker.State = WorkerState.Retiring;
        Retiring++;
        _retired.Add();
    }

    /// <summary>Takes every parked worker off the idle list, running (the pool is shutting down); the caller wakes them.</summary>
    public PoolWorker[] TakeAllParked()
    {
        var parked = new PoolWorker[_parked.Count];
        var i = 0;
        while (_parked.First is { } longest)
        {
            parked[i++] = longest.Value;
            Unpark(longest.Value);
        }

        return parked;
    }

    /// <summary>Uncounts a worker whose loop has ended; its thread exits next.</summary>
    public void Exit(PoolWorker worker)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread && worker.State is WorkerState.Running or WorkerState.Retiring, "A worker that is neither parked nor claimed exits, under the gate.");
        Alive--;
        if (worker.State == WorkerState.Retiring)
        {
            Retiring--;
        }
    }

    /// <summary>Checks, under the gate, that the counts agree with one another.</summary>
    [Conditional("DEBUG")]
    public void AssertInvariants()
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "The invariants hold under the gate.");
        Debug.Assert(Claimed >= 0 && Retiring >= 0 && Retiring <= Alive, "The counts are consistent.");
        Debug.Assert(Parked <= Serving - Claimed, "Parked workers are serving and not claimed.");
    }

    /// <summary>Takes a parked worker off the idle list, running.</summary>
    private void Unpark(PoolWorker worker)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread && worker.State == WorkerState.Parked, "Only a parked worker is taken off the list, under the gate.");
        _parked.Remove(worker.IdleNode);
        worker.State = WorkerState.Running;
    }
}
