using Concurrency.Messaging.Admission;
using Xunit;

namespace Concurrency.Messaging.Tests.Admission;

/// <summary>
/// Many threads against one gate. Each admitted item counts itself in and out around its work, so the test sees its own
/// outstanding count, which can only lag the gate's; the maximum it sees must stay within the limit. Nothing is lost:
/// admitted plus rejected equals the attempts, and every admitted item completes (count and checksum).
/// </summary>
public sealed class AdmissionConcurrencyTests
{
    private const int Threads = 8;
    private const int Attempts = 20_000;
    private const int Limit = 3;

    [Fact]
    public async Task TryEnter_ManyThreads_NeverExceedsTheLimit()
    {
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = Limit });
        var probe = new Probe();

        await RunThreads(() =>
        {
            for (var i = 0; i < Attempts; i++)
            {
                if (gate.TryEnter(out var lease))
                {
                    probe.Work(lease, i);
                }
                else
                {
                    probe.Rejected(i);
                }
            }
        });

        probe.Verify(gate);
    }

    [Fact]
    public async Task EnterAsync_RejectPolicyManyThreads_LosesNothingAndNeverExceedsTheLimit()
    {
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = Limit });
        var probe = new Probe();

        await RunThreads(() =>
        {
            for (var i = 0; i < Attempts; i++)
            {
                var entry = gate.EnterAsync(TestContext.Current.CancellationToken);
                Assert.True(entry.IsCompleted, "A Reject-policy entry never waits.");
                try
                {
                    probe.Work(entry.Result, i);
                }
                catch (AdmissionRejectedException rejected)
                {
                    Assert.Equal(Limit, rejected.Limit);
                    probe.Rejected(i);
                }
            }
        });

        probe.Verify(gate);
    }

    [Fact]
    public async Task Dispose_FromManyThreadsAtOnce_ReleasesOnce()
    {
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = Limit });
        Assert.True(gate.TryEnter(out var held));
        for (var round = 0; round < 1_000; round++)
        {
            Assert.True(gate.TryEnter(out var lease));
            using var start = new Barrier(Threads);

            await RunThreads(() =>
            {
                start.SignalAndWait(TestTimeouts.Default, TestContext.Current.CancellationToken);
                lease.Dispose();
            });

            Assert.Equal(1, gate.Metrics.Outstanding);
        }

        held.Dispose();
        Assert.Equal(0, gate.Metrics.Outstanding);
    }

    private static Task RunThreads(Action body)
        => Task.WhenAll(Enumerable.Range(0, Threads).Select(_ => Task.Factory.StartNew(body, TestContext.Current.CancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default))).DefaultTimeout();

    private sealed class Probe
    {
        private int _inside;     // Interlocked: items between their admission and their lease's release
        private int _maxInside;  // Interlocked: the highest _inside seen
        private long _completed; // Interlocked
        private long _rejected;  // Interlocked
        private long _checksum;  // Interlocked: the sum of the numbers of the items completed or rejected

        public void Work(AdmissionLease lease, int item)
        {
            using (lease)
            {
                var inside = Interlocked.Increment(ref _inside);
                var max = Volatile.Read(ref _maxInside);
                while (inside > max && Interlocked.CompareExchange(ref _maxInside, inside, max) != max)
                {
                    max = Volatile.Read(ref _maxInside);
                }

                Thread.Yield(); // hand the core to another thread while holding the place, so the limit binds on few cores
                Interlocked.Add(ref _checksum, item);
                Interlocked.Increment(ref _completed);
                Interlocked.Decrement(ref _inside);
            }
        }

        public void Rejected(int item)
        {
            Interlocked.Add(ref _checksum, item);
            Interlocked.Increment(ref _rejected);
        }

        public void Verify(IAdmissionGate gate)
        {
            var metrics = gate.Metrics;
            Assert.InRange(_maxInside, 1, Limit);
            Assert.Equal(Limit, metrics.MaxOutstanding);
            Assert.Equal(0, metrics.Outstanding);
            Assert.Equal((long)Threads * Attempts, metrics.Admitted + metrics.Rejected);
            Assert.Equal(metrics.Admitted, _completed);
            Assert.Equal(metrics.Rejected, _rejected);
            Assert.Equal((long)Threads * Attempts * (Attempts - 1) / 2, _checksum); // every attempt accounted for once
        }
    }
}
