using System.Collections;
using System.Collections.Concurrent;
using System.Reflection;

namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// A pooled consumer's turn whose queue itself throws. A whole-suite run once crashed the test process with
/// <see cref="BlockingCollection{T}"/>'s "The underlying collection was modified from outside" thrown out of a pooled turn
/// (cause not found). The test gives a <see cref="PipeKind.BlockingCollection"/> pipe's lane an underlying collection that
/// accepts an add and then has nothing to take, which makes <see cref="BlockingCollection{T}.TryTake(out T)"/> throw that
/// very exception on every take. The pipe must complete, faulted with an error that names the queue (not a handler) and
/// carries the queue's exception; the process must not end.
/// </summary>
public sealed class PooledTurnQueueFailureTests
{
    [Fact]
    public async Task Post_QueueThrowsInPooledTurn_PipeFaultsWithTheQueuesErrorAndCompletes()
    {
        var handled = 0;
        var pipe = new BlockingCollectionPipe<long>(
            [_ => Interlocked.Increment(ref handled)],
            new PipeOptions { Runner = PipeRunner.ThreadPool });
        LoseEveryAdd(Lane(pipe));

        Assert.True(pipe.TryPost(1)); // accepted: the collection counts it, then has nothing to give the turn

        var fault = await Assert.ThrowsAsync<InvalidOperationException>(() => pipe.Completion.DefaultTimeout());
        Assert.Contains("queue failed", fault.Message, StringComparison.Ordinal);
        Assert.IsType<InvalidOperationException>(fault.InnerException);
        Assert.Contains("modified from outside", fault.InnerException.Message, StringComparison.Ordinal);
        Assert.Equal(0, Volatile.Read(ref handled));
        Assert.False(pipe.TryPost(2)); // faulted means closed
        await pipe.DisposeAsync();
    }

    private static BlockingCollection<long> Lane(BlockingCollectionPipe<long> pipe)
        => ((BlockingCollection<long>[])typeof(BlockingCollectionPipe<long>)
            .GetField("_lanes", BindingFlags.NonPublic | BindingFlags.Instance)!
            .GetValue(pipe)!)[0];

    // BlockingCollection keeps the collection it wraps in a private field; the test swaps it before anything is posted.
    private static void LoseEveryAdd(BlockingCollection<long> lane)
        => typeof(BlockingCollection<long>)
            .GetField("_collection", BindingFlags.NonPublic | BindingFlags.Instance)!
            .SetValue(lane, new LosingCollection());
}
