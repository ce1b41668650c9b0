using System.Diagnostics;
using Concurrency.Messaging.Admission;

namespace Concurrency.Benchmarks.Pools.Admission;

/// <summary>
/// The seed's stress test in miniature: each thread attempts a fixed number of items through one gate, as fast as it can,
/// keeping up to <see cref="Window"/> of its items outstanding at once. An admitted item does its work (about
/// <see cref="WorkMicroseconds"/> µs of CPU) and then stays outstanding for its hold: most items are short, one in
/// <see cref="LongEvery"/> is long, as the seed's "shorter and longer transactions". The thread releases an item once its
/// hold has passed, before its next attempt and while it waits for a full window or a throttled entry, so a held item can
/// outlast its hold when its thread is descheduled (the seed's "completed but overlapping"). A rejected item is counted
/// and not retried.
/// </summary>
internal static class AdmissionStress
{
    public const int Window = 40;
    public const int WorkMicroseconds = 2;
    public const int ShortHoldMicroseconds = 100;
    public const int LongHoldMicroseconds = 2_000;
    public const int LongEvery = 16;

    /// <summary>Runs <paramref name="threads"/> threads of <paramref name="items"/> attempts each through a fresh gate.</summary>
    /// <exception cref="LabVerificationException">An attempt was lost, an admitted item did not run, or the gate passed its limit.</exception>
    public static AdmissionRunResult Run(Contender<AdmissionOptions> setup, int threads, int items, CancellationToken cancellation)
    {
        var gate = AdmissionGate.Create(setup.Build);
        var work = CpuWork.IterationsFor(WorkMicroseconds);
        var clients = Enumerable.Range(0, threads).Select(_ => new Client(gate, items, work, cancellation)).ToArray();
        using var start = new ManualResetEventSlim();
        var running = clients.Select(c => new Thread(() =>
        {
            start.Wait(cancellation);
            c.Run();
        }) { IsBackground = true }).ToArray();
        foreach (var thread in running)
        {
            thread.Start();
        }

        var begin = Stopwatch.GetTimestamp();
        start.Set();
        foreach (var thread in running)
        {
            thread.Join();
        }

        var seconds = Stopwatch.GetElapsedTime(begin).TotalSeconds;
        var result = new AdmissionRunResult(seconds, (long)threads * items, clients.Sum(c => c.Admitted), clients.Sum(c => c.Rejected), gate.Metrics.Throttled, gate.Metrics.MaxOutstanding);
        Verify(setup, gate, clients, result, items);
        return result;
    }

    private static void Verify(Contender<AdmissionOptions> setup, IAdmissionGate gate, Client[] clients, AdmissionRunResult result, int items)
    {
        var metrics = gate.Metrics;
        var expectedChecksum = (long)items * (items - 1) / 2;
        if (clients.FirstOrDefault(c => c.Failure is not null) is { } failed)
        {
            throw new LabVerificationException($"{setup.Name}: a thread failed: {failed.Failure}");
        }

        if (result.Admitted + result.Rejected != result.Attempted || metrics.Admitted != result.Admitted || metrics.Rejected != result.Rejected)
        {
            throw new LabVerificationException($"{setup.Name}: {result.Attempted} attempted, the threads saw {result.Admitted} admitted and {result.Rejected} rejected, the gate {metrics.Admitted} and {metrics.Rejected}.");
        }

        if (clients.Any(c => c.Ran != c.Admitted || c.Checksum != expectedChecksum))
        {
            throw new LabVerificationException($"{setup.Name}: an admitted item did not run, or an attempt was counted twice (count or checksum mismatch).");
        }

        if (metrics.Outstanding != 0 || metrics.MaxOutstanding > gate.Limit)
        {
            throw new LabVerificationException($"{setup.Name}: {metrics.Outstanding} still outstanding at the end, {metrics.MaxOutstanding} at most against a limit of {gate.Limit}.");
        }
    }

    /// <summary>One thread's items. Its fields are written by its own thread only and read after that thread is joined.</summary>
    private sealed class Client(IAdmissionGate gate, int items, int work, CancellationToken cancellation)
    {
        private static readonly long ShortHold = Stopwatch.Frequency * ShortHoldMicroseconds / 1_000_000;
        private static readonly long LongHold = Stopwatch.Frequency * LongHoldMicroseconds / 1_000_000;

        private readonly List<(AdmissionLease Lease, long Due)> _open = new(Window);

        public long Admitted { get; private set; }

        public long Rejected { get; private set; }

        public long Ran { get; private set; }

        /// <summary>Gets the sum of the numbers of the items that ran or were rejected: each attempt once.</summary>
        public long Checksum { get; private set; }

        public long Sink { get; private set; }

        public Exception? Failure { get; private set; }

        public void Run()
        {
            try
            {
                for (var i = 0; i < items; i++)
                {
                    ReleaseDue();
                    while (_open.Count == Window)
                    {
                        Thread.Yield();
                        ReleaseDue();
                    }

                    if (Enter() is { } lease)
                    {
                        Admitted++;
                        Sink ^= CpuWork.Burn(work, i);
                        Ran++;
                        Checksum += i;
                        _open.Add((lease, Stopwatch.GetTimestamp() + (i % LongEvery == 0 ? LongHold : ShortHold)));
                    }
                    else
                    {
                        Rejected++;
                        Checksum += i;
                    }
                }

                while (_open.Count > 0)
                {
                    Thread.Yield();
                    ReleaseDue();
                }
            }
#pragma warning disable CA1031 // the failure is reported by Verify on the lab's thread, which throws LabVerificationException
            catch (Exception failure)
#pragma warning restore CA1031
            {
                Failure = failure;
            }
        }

        private AdmissionLease? Enter()
        {
            var entry = gate.EnterAsync(cancellation);
            try
            {
                if (entry.IsCompleted)
                {
                    return entry.Result;
                }

                // Throttled: keep releasing this thread's items whose hold has passed while the entry waits.
                var waiting = entry.AsTask();
                while (!waiting.Wait(1, cancellation))
                {
                    ReleaseDue();
                }

                return waiting.Result;
            }
            catch (AdmissionRejectedException)
            {
                return null;
            }
            catch (AggregateException wrapped) when (wrapped.InnerException is AdmissionRejectedException)
            {
                return null;
            }
        }

        private void ReleaseDue()
        {
            var now = Stopwatch.GetTimestamp();
            for (var i = _open.Count - 1; i >= 0; i--)
            {
                if (_open[i].Due <= now)
                {
                    _open[i].Lease.Dispose();
                    _open[i] = _open[^1];
                    _open.RemoveAt(_open.Count - 1);
                }
            }
        }
    }
}
