using System.Diagnostics;
using Concurrency.Messaging.Pipes;
using Xunit;

namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// What is particular to <see cref="PipeRunner.ThreadPool"/>: which pipes accept it, and that an idle pipe run by it holds
/// no thread. Its delivery guarantees are the pipe contract's (<see cref="ThreadPoolBatchDrainQueuePipeTests"/>).
/// </summary>
public sealed class ThreadPoolRunnerTests
{
    private static readonly PipeOptions ThreadPoolRunner = new() { Runner = PipeRunner.ThreadPool };

    [Theory]
    [InlineData(PipeKind.Channel)]
    [InlineData(PipeKind.Ring)]
    [InlineData(PipeKind.BlockingCollection)]
    [InlineData(PipeKind.ReaderWriterLockQueue)]
    [InlineData(PipeKind.ObserveOn)]
    public void Create_ThreadPoolRunnerForAnotherKind_ThrowsArgumentException(PipeKind kind)
    {
        Assert.Throws<ArgumentException>(() => Pipe.Create<long>(kind, _ => { }, ThreadPoolRunner));
    }

    [Fact]
    public void Create_ThreadPoolRunnerWithWorkSharing_ThrowsArgumentException()
    {
        Assert.Throws<ArgumentException>(() => Pipe.Create<long>(
            PipeKind.BatchDrainQueue,
            [_ => { }, _ => { }],
            ThreadPoolRunner with { Distribution = PipeDistribution.WorkSharing }));
    }

    [Fact]
    public void Create_BadRunnerOptions_ThrowArgumentOutOfRange()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Pipe.Create<long>(PipeKind.BatchDrainQueue, _ => { }, ThreadPoolRunner with { MessagesPerTurn = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => Pipe.Create<long>(PipeKind.BatchDrainQueue, _ => { }, ThreadPoolRunner with { Runner = (PipeRunner)42 }));
    }

    [Fact]
    public async Task Post_MessagesPerTurnOne_EveryMessageHandledInOrder()
    {
        var log = new DeliveryLog(1, 1_000);
        await using var pipe = Pipe.Create<long>(PipeKind.BatchDrainQueue, log.Record, ThreadPoolRunner with { MessagesPerTurn = 1 });

        for (var i = 0; i < 1_000; i++)
        {
            pipe.Post(DeliveryLog.Message(0, i), TestContext.Current.CancellationToken);
        }

        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        log.AssertExactlyOnce(1, 1_000);
        Assert.Equal(0, log.OutOfOrder);
    }

    [Fact]
    public async Task Pipes_Idle_HoldNoThreadAndWakeForTheNextMessage()
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
            .Select(_ => Pipe.Create<long>(PipeKind.BatchDrainQueue, round =>
            {
                if (Interlocked.Increment(ref handled) % pipes == 0)
                {
                    rounds[round].SetResult();
                }
            }, ThreadPoolRunner))
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
    }

    private static int ProcessThreads()
    {
        using var process = Process.GetCurrentProcess();
        return process.Threads.Count;
    }
}
