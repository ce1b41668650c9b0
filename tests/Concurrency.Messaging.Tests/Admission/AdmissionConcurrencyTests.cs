namespace Concurrency.Messaging.Tests.Admission;

/// <summary>
/// Many threads against one gate. Each admitted item counts itself in and out around its work, so the test sees its own
/// outstanding count, which can only lag the gate's; the maximum it sees must stay within the limit. Nothing is lost:
/// the gate's admitted and rejected counts match what the items saw; each admitted item adds its number on entry and again
/// on completion, and the two sums must agree; admitted and rejected sums together must equal the sum of the attempts.
/// </summary>
public sealed class AdmissionConcurrencyTests
{
    private const int Threads = 8;
    private const int Attempts = 20_000;
    private const int Limit = 3;

    [Fact]
    public async Task TryEnter_ManyThreads_NeverExceedsTheLimit()
        => await AttemptFromManyThreadsAsync((gate, probe, i) =>
        {
            if (gate.TryEnter(out var lease))
            {
                probe.Work(lease, i);
            }
            else
            {
                probe.Rejected(i);
            }
        });

    [Fact]
    public async Task EnterAsync_RejectPolicyManyThreads_LosesNothingAndNeverExceedsTheLimit()
        => await AttemptFromManyThreadsAsync((gate, probe, i) =>
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
        });

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

    /// <summary>
    /// <see cref="Threads"/> threads each make <see cref="Attempts"/> attempts through one gate of <see cref="Limit"/>:
    /// <paramref name="attempt"/> tries to enter item i and hands it to the probe as worked or rejected; then the probe
    /// checks the gate's counts against what the items saw.
    /// </summary>
    private static async Task AttemptFromManyThreadsAsync(Action<IAdmissionGate, Probe, int> attempt)
    {
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = Limit });
        var probe = new Probe();

        await RunThreads(() =>
        {
            for (var i = 0; i < Attempts; i++)
            {
                attempt(gate, probe, i);
            }
        });

        probe.Verify(gate);
    }

    private static Task RunThreads(Action body)
        => Task.WhenAll(Enumerable.Range(0, Threads).Select(_ => Task.Factory.StartNew(body, TestContext.Current.CancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default))).DefaultTimeout();

    private sealed class Probe
    {
        private int _inside;        // Interlocked: items between their admission and their lease's release
        private int _maxInside;     // Interlocked: the highest _inside seen
        private long _entered;      // Interlocked: admitted items that started their work
        private long _completed;    // Interlocked: admitted items that finished it
        private long _rejected;     // Interlocked
        private long _enteredSum;   // Interlocked: the sum of the numbers of the items entered
        private long _completedSum; // Interlocked: the sum of the numbers of the items completed
        private long _rejectedSum;  // Interlocked: the sum of the numbers of the items rejected

        public void Work(AdmissionLease lease, int item)
        {
            using (lease)
            {
                Interlocked.Increment(ref _entered);
                Interlocked.Add(ref _enteredSum, item);
                InterlockedMax.Raise(ref _maxInside, Interlocked.Increment(ref _inside));

                Thread.Yield(); // hand the core to another thread while holding the place, so the limit binds on few cores
                Interlocked.Decrement(ref _inside);
                Interlocked.Add(ref _completedSum, item);
                Interlocked.Increment(ref _completed);
            }
        }

        public void Rejected(int item)
        {
            Interlocked.Add(ref _rejectedSum, item);
            Interlocked.Increment(ref _rejected);
        }

        public void Verify(IAdmissionGate gate)
        {
            var metrics = gate.Metrics;
            Assert.InRange(_maxInside, 1, Limit);
            Assert.Equal(Limit, metrics.MaxOutstanding);
            Assert.Equal(0, metrics.Outstanding);
            Assert.Equal((long)Threads * Attempts, metrics.Admitted + metrics.Rejected);

            // The gate's counts match what the items saw, branch by branch.
            Assert.Equal(metrics.Admitted, _entered);
            Assert.Equal(metrics.Admitted, _completed);
            Assert.Equal(metrics.Rejected, _rejected);

            // Every admitted item that entered also completed, and every attempt went down exactly one branch.
            Assert.Equal(_enteredSum, _completedSum);
            Assert.Equal((long)Threads * Attempts * (Attempts - 1) / 2, _enteredSum + _rejectedSum);
        }
    }
}
