using System.Threading.Channels;

namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// A consumer whose queue itself throws (not a handler): the pipe faults, whichever runner runs the consumer, and
/// <see cref="IPipe{T}.Completion"/> says so; the process lives. The pooled runner's case over a blocking collection is
/// <see cref="PooledTurnQueueFailureTests"/>.
/// </summary>
public sealed class QueueFailureTests
{
    [Fact]
    public async Task Post_QueueThrowsOnADedicatedConsumerThread_PipeFaultsAndTheProcessLives()
    {
        // Run in the crash probe: before the fix the exception left the consumer thread and ended the process.
        var (exitCode, output, errors) = await CrashProbeProcess.RunAsync("queue-thread");

        Assert.True(exitCode == 0, $"the probe exited with {exitCode}; its error output: {errors}");
        Assert.Contains("faulted: The pipe's queue failed", output, StringComparison.Ordinal);
        Assert.Contains("modified from outside", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Post_ChannelReaderThrowsInThePooledReadLoop_CompletionFaultsWithTheReadersError()
        => await AssertReaderFailureFaultsThePipeAsync(PipeRunner.ThreadPool);

    [Fact]
    public async Task Post_ChannelReaderThrowsOnADedicatedConsumerThread_CompletionFaultsWithTheReadersError()
        => await AssertReaderFailureFaultsThePipeAsync(PipeRunner.DedicatedThread);

    private static async Task AssertReaderFailureFaultsThePipeAsync(PipeRunner runner)
    {
        var handled = 0;
        var broken = new InvalidOperationException("broken reader");
        var pipe = new ChannelPipe<long>(
            [_ => Interlocked.Increment(ref handled)],
            new PipeOptions { Runner = runner },
            lane => new BrokenReaderChannel(lane, broken));

        Assert.True(pipe.TryPost(1));

        var fault = await Assert.ThrowsAsync<InvalidOperationException>(() => pipe.Completion.DefaultTimeout());
        Assert.Contains("queue failed", fault.Message, StringComparison.Ordinal);
        Assert.Same(broken, fault.InnerException);
        Assert.Equal(0, Volatile.Read(ref handled));
        Assert.False(pipe.TryPost(2)); // faulted means closed
        await pipe.DisposeAsync();
    }

    /// <summary>The lane's own writer, and a reader that waits as the lane's does but throws when asked for a message.</summary>
    private sealed class BrokenReaderChannel : Channel<long>
    {
        public BrokenReaderChannel(Channel<long> lane, Exception failure)
        {
            Writer = lane.Writer;
            Reader = new BrokenReader(lane.Reader, failure);
        }
    }

    private sealed class BrokenReader(ChannelReader<long> inner, Exception failure) : ChannelReader<long>
    {
        public override Task Completion => inner.Completion;

        public override bool TryRead(out long item) => inner.TryPeek(out item) ? throw failure : false;

        public override bool TryPeek(out long item) => inner.TryPeek(out item);

        public override ValueTask<bool> WaitToReadAsync(CancellationToken cancellationToken = default) => inner.WaitToReadAsync(cancellationToken);
    }
}
