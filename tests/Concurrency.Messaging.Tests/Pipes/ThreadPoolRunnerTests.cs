using System.Diagnostics;

namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// What is particular to <see cref="PipeRunner.ThreadPool"/>: every kind accepts it (but an event loop), and an idle pipe
/// run by it holds no thread, whatever its queue. Its delivery guarantees are the pipe contract's, run for every kind under
/// this runner (<see cref="ThreadPoolBatchDrainQueuePipeTests"/>, <see cref="ThreadPoolRingPipeTests"/> and the others).
/// </summary>
public sealed class ThreadPoolRunnerTests
{
    private static readonly PipeOptions ThreadPoolRunner = new() { Runner = PipeRunner.ThreadPool };

    [Fact]
    public void Create_ThreadPoolRunnerOnAnEventLoop_ThrowsArgumentException()
    {
        var ex = Assert.Throws<ArgumentException>(() => Pipe.Create<long>(
            PipeKind.ObserveOn, _ => { }, ThreadPoolRunner with { Scheduler = PipeScheduler.EventLoop }));
        Assert.Contains("event loop", ex.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void Create_UnknownScheduler_ThrowsArgumentOutOfRange()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Pipe.Create<long>(PipeKind.ObserveOn, _ => { }, new PipeOptions { Scheduler = (PipeScheduler)42 }));
    }

    [Fact]
    public void Create_BadRunnerOptions_ThrowArgumentOutOfRange()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Pipe.Create<long>(PipeKind.BatchDrainQueue, _ => { }, ThreadPoolRunner with { MessagesPerTurn = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => Pipe.Create<long>(PipeKind.BatchDrainQueue, _ => { }, ThreadPoolRunner with { Runner = (PipeRunner)42 }));
    }

    [Theory]
    [InlineData(PipeKind.BatchDrainQueue)]
    [InlineData(PipeKind.Ring)]
    [InlineData(PipeKind.ReaderWriterLockQueue)]
    [InlineData(PipeKind.BlockingCollection)]
    [InlineData(PipeKind.Channel)]
    public async Task Post_MessagesPerTurnOne_EveryMessageHandledInOrder(PipeKind kind)
    {
        var log = new DeliveryLog(1, 1_000);
        await using var pipe = Pipe.Create<long>(kind, log.Record, ThreadPoolRunner with { MessagesPerTurn = 1 });

        for (var i = 0; i < 1_000; i++)
        {
            pipe.Post(DeliveryLog.Message(0, i), TestContext.Current.CancellationToken);
        }

        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        log.AssertExactlyOnceInOrder(1, 1_000);
    }

    public static TheoryData<PipeKind, PipeDistribution, int> IdleCases => new()
    {
        { PipeKind.BatchDrainQueue, PipeDistribution.Broadcast, 1 },
        { PipeKind.BatchDrainQueue, PipeDistribution.WorkSharing, 2 },
        { PipeKind.Ring, PipeDistribution.Broadcast, 1 },
        { PipeKind.Ring, PipeDistribution.WorkSharing, 2 },
        { PipeKind.ReaderWriterLockQueue, PipeDistribution.Broadcast, 1 },
        { PipeKind.ReaderWriterLockQueue, PipeDistribution.WorkSharing, 2 },
        { PipeKind.BlockingCollection, PipeDistribution.Broadcast, 1 },
        { PipeKind.BlockingCollection, PipeDistribution.WorkSharing, 2 },
        { PipeKind.Channel, PipeDistribution.Broadcast, 1 },
        { PipeKind.Channel, PipeDistribution.WorkSharing, 2 },
        { PipeKind.ObserveOn, PipeDistribution.Broadcast, 1 },
    };

    [Theory]
    [MemberData(nameof(IdleCases))]
    public async Task Pipes_Idle_HoldNoThreadAndWakeForTheNextMessage(PipeKind kind, PipeDistribution distribution, int consumers)
    {
        const int pipes = 1_000;
        var handled = 0;
        var rounds = new[]
        {
            new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously),
            new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously),
        };
        var threadsBefore = ProcessThreads();
        var created = Enumerable.Range(0, pipes)
            .Select(_ => Pipe.Create<long>(kind, [.. Enumerable.Repeat<Action<long>>(Handle, consumers)], ThreadPoolRunner with { Distribution = distribution }))
            .ToArray();
        try
        {
            // Each pipe handles a message, goes idle, and must wake again for the next one.
            for (var round = 0; round < rounds.Length; round++)
            {
                foreach (var pipe in created)
                {
                    pipe.Post(round, TestContext.Current.CancellationToken);
                }

                await rounds[round].Task.DefaultTimeout();
            }

            var threadsAfter = ProcessThreads();

            // Other tests run alongside and the pool may add a few threads; a thread per pipe would add a thousand.
            Assert.True(threadsAfter - threadsBefore < pipes / 10, $"threads grew from {threadsBefore} to {threadsAfter} for {pipes} pipes");
        }
        finally
        {
            foreach (var pipe in created)
            {
                await pipe.DisposeAsync().AsTask().DefaultTimeout();
            }
        }

        Assert.All(created, p => Assert.True(p.Completion.IsCompletedSuccessfully));

        void Handle(long round)
        {
            // One message per pipe and round: a work-sharing pipe hands it to one of its consumers.
            if (Interlocked.Increment(ref handled) == (round + 1) * pipes)
            {
                rounds[round].SetResult();
            }
        }
    }

    private static int ProcessThreads()
    {
        using var process = Process.GetCurrentProcess();
        return process.Threads.Count;
    }
}
