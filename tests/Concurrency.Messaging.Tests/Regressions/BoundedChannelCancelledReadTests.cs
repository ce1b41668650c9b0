using System.Threading.Channels;
using Concurrency.Messaging.Pipes;
using Concurrency.Messaging.Tests.Pipes;
using Xunit;

namespace Concurrency.Messaging.Tests.Regressions;

/// <summary>
/// dotnet/runtime#132094: a bounded channel (FullMode.Wait) with one writer (TryWrite, in bursts) and two readers whose
/// ReadAsync calls get cancelled by a batch timeout loses about one item in a million on .NET 10; the fix (#132230) is not
/// in a servicing release we can rely on. The raw pattern is measured and reported; our channel pipe, which never reads
/// with a cancellable call, must lose nothing under the same traffic.
/// </summary>
public sealed class BoundedChannelCancelledReadTests
{
    private const int Capacity = 16;

    [Fact]
    public async Task RawBoundedChannel_CancelledReadAsyncTwoReaders_AccountsForEveryItem()
    {
        var outcome = await RunRawAsync(items: 300_000, budget: TimeSpan.FromSeconds(5));
        Report(outcome);
    }

    [Fact]
    [Trait("Category", "Stress")]
    public async Task RawBoundedChannel_CancelledReadAsyncTwoReaders_ThreeMillionItems_AccountsForEveryItem()
    {
        var outcome = await RunRawAsync(items: 3_000_000, budget: TimeSpan.FromSeconds(60));
        Report(outcome);
    }

    [Fact]
    public async Task ChannelPipe_SameTrafficTwoConsumers_EveryItemExactlyOnce()
        => await RunPipeAsync(items: 300_000);

    [Fact]
    [Trait("Category", "Stress")]
    public async Task ChannelPipe_SameTrafficTwoConsumers_ThreeMillionItems_EveryItemExactlyOnce()
        => await RunPipeAsync(items: 3_000_000);

    /// <summary>The shape: TryWrite from a dedicated thread in random bursts; two readers read batches with ReadAsync
    /// under a short CancelAfter, so pending reads are cancelled while the writer hands them items.</summary>
    private static async Task<ChannelRunOutcome> RunRawAsync(int items, TimeSpan budget)
    {
        var channel = Channel.CreateBounded<int>(new BoundedChannelOptions(Capacity) { FullMode = BoundedChannelFullMode.Wait });
        var seen = new int[items];
        long read = 0, duplicated = 0, written = 0;
        using var stop = new CancellationTokenSource(budget);

        var writer = Task.Factory.StartNew(
            () =>
            {
                var random = new Random(132094);
                var next = 0;
                while (next < items && !stop.IsCancellationRequested)
                {
                    var burst = random.Next(1, 64);
                    for (var i = 0; i < burst && next < items; i++)
                    {
                        var spinner = default(SpinWait);
                        while (!channel.Writer.TryWrite(next))
                        {
                            if (stop.IsCancellationRequested)
                            {
                                return;
                            }

                            spinner.SpinOnce();
                        }

                        next++;
                        Interlocked.Increment(ref written);
                    }

                    Thread.SpinWait(random.Next(0, 2_000));
                }
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

        async Task ReadAsync()
        {
            while (true)
            {
                using var batchTimeout = new CancellationTokenSource(TimeSpan.FromMilliseconds(1));
                try
                {
                    for (var i = 0; i < 32; i++)
                    {
                        var item = await channel.Reader.ReadAsync(batchTimeout.Token);
                        Interlocked.Increment(ref read);
                        if (Interlocked.Increment(ref seen[item]) > 1)
                        {
                            Interlocked.Increment(ref duplicated);
                        }
                    }
                }
                catch (OperationCanceledException)
                {
                    // The batch timed out: the pattern that triggers the bug.
                }
                catch (ChannelClosedException)
                {
                    return;
                }
            }
        }

        var readers = new[] { Task.Run(ReadAsync), Task.Run(ReadAsync) };
        string? failure = null;
        try
        {
            await writer.WaitAsync(budget + TestTimeouts.Default);
            channel.Writer.Complete();
            await Task.WhenAll(readers).WaitAsync(TestTimeouts.Default);
        }
        catch (TimeoutException ex)
        {
            failure = ex.Message;
        }

        return new ChannelRunOutcome(Interlocked.Read(ref written), Interlocked.Read(ref read), duplicated, channel.Reader.Count, failure);
    }

    private static async Task RunPipeAsync(int items)
    {
        var logs = new[] { new DeliveryLog(1, items), new DeliveryLog(1, items) };
        await using var pipe = Pipe.Create(
            PipeKind.Channel,
            new Action<long>[] { logs[0].Record, logs[1].Record },
            new PipeOptions { Capacity = Capacity, Distribution = PipeDistribution.WorkSharing });

        await Task.Factory.StartNew(
            () =>
            {
                var random = new Random(132094);
                var next = 0;
                while (next < items)
                {
                    var burst = random.Next(1, 64);
                    for (var i = 0; i < burst && next < items; i++, next++)
                    {
                        if (!pipe.TryPost(DeliveryLog.Message(0, next)))
                        {
                            pipe.Post(DeliveryLog.Message(0, next), TestContext.Current.CancellationToken);
                        }
                    }

                    Thread.SpinWait(random.Next(0, 2_000));
                }
            },
            TestContext.Current.CancellationToken,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default).WaitAsync(TimeSpan.FromMinutes(2), TestContext.Current.CancellationToken);
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        DeliveryLog.AssertExactlyOnceAcross(logs, 1, items);
    }

    private static void Report(ChannelRunOutcome outcome)
    {
        TestContext.Current.SendDiagnosticMessage($"dotnet/runtime#132094 raw pattern on .NET {Environment.Version}: {outcome}");
        TestContext.Current.TestOutputHelper?.WriteLine($"dotnet/runtime#132094 raw pattern on .NET {Environment.Version}: {outcome}");

        // The measurement must account for every item: read once, left in the channel, or lost. A loss is the runtime
        // bug this test exists to record, so it is reported, not failed; a duplicate or a hang would be a new bug.
        Assert.True(outcome.Written > 0, "the writer wrote nothing");
        Assert.Equal(0, outcome.Duplicated);
        Assert.Null(outcome.Failure);
        Assert.InRange(outcome.Lost, 0, outcome.Written);
    }
}
