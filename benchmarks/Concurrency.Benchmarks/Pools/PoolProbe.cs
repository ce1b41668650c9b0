using System.Diagnostics;

namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// The tasks of one measured run: each task notes when it was submitted and when it started, burns a little CPU, and adds
/// its index to a checksum. A burst ends when its last task ends; the run checks afterwards that every task ran exactly once.
/// </summary>
public sealed class PoolProbe : IDisposable
{
    private static readonly TimeSpan BurstLimit = TimeSpan.FromMinutes(1);

    private readonly long[] _submitted; // written by the producer before the submit, read after the run
    private readonly long[] _started;   // slot i written by the task that runs i, read after the run
    private readonly int _work;
    private readonly ManualResetEventSlim _burstDone = new(false);
    private long _checksum;   // Interlocked
    private long _ran;        // Interlocked
    private long _zeros;      // Interlocked: burns that came out zero, which xorshift never does; keeps the burn from being optimized away
    private int _remaining;   // Interlocked: tasks of the current burst still running
    private long _burstEnd;   // written by the burst's last task before it sets _burstDone

    /// <summary>Creates a probe for <paramref name="tasks"/> tasks, each burning <paramref name="workIterations"/> steps.</summary>
    public PoolProbe(int tasks, int workIterations)
    {
        _submitted = new long[tasks];
        _started = new long[tasks];
        _work = workIterations;
    }

    public int Tasks => _submitted.Length;

    /// <summary>Called by the producer before it submits a burst of <paramref name="count"/> tasks.</summary>
    public void BeginBurst(int count)
    {
        _burstDone.Reset();
        Volatile.Write(ref _remaining, count);
    }

    /// <summary>Called by the producer just before it submits task <paramref name="index"/>.</summary>
    public void Submitting(int index) => _submitted[index] = Stopwatch.GetTimestamp();

    /// <summary>The task itself, run by the contender.</summary>
    public void Run(int index)
    {
        _started[index] = Stopwatch.GetTimestamp();
        if (CpuWork.Burn(_work, index) == 0)
        {
            Interlocked.Increment(ref _zeros);
        }

        Interlocked.Add(ref _checksum, index + 1);
        Interlocked.Increment(ref _ran);
        if (Interlocked.Decrement(ref _remaining) == 0)
        {
            Volatile.Write(ref _burstEnd, Stopwatch.GetTimestamp());
            _burstDone.Set();
        }
    }

    /// <summary>Waits for the current burst's last task and returns the timestamp at which it ended.</summary>
    /// <exception cref="LabVerificationException">The burst did not finish within a minute: tasks were lost.</exception>
    public long WaitBurst(CancellationToken cancellation)
    {
        if (!_burstDone.Wait(BurstLimit, cancellation))
        {
            throw new LabVerificationException($"{Volatile.Read(ref _remaining)} tasks of a burst never ran.");
        }

        return Volatile.Read(ref _burstEnd);
    }

    /// <summary>Checks that every task ran exactly once.</summary>
    /// <exception cref="LabVerificationException">A count or the checksum does not match.</exception>
    public void Verify(string contender)
    {
        long n = Tasks;
        var ran = Interlocked.Read(ref _ran);
        var checksum = Interlocked.Read(ref _checksum);
        if (ran != n || checksum != n * (n + 1) / 2 || Interlocked.Read(ref _zeros) != 0 || Array.IndexOf(_started, 0L) >= 0)
        {
            throw new LabVerificationException($"{contender}: ran {ran} of {n} tasks, checksum {checksum}, expected {n * (n + 1) / 2}.");
        }
    }

    /// <summary>The wait of task <paramref name="index"/> from submit to start, in nanoseconds.</summary>
    public long LatencyNanoseconds(int index)
        => Math.Max(0, (long)((_started[index] - _submitted[index]) * (1e9 / Stopwatch.Frequency)));

    public void Dispose() => _burstDone.Dispose();
}
