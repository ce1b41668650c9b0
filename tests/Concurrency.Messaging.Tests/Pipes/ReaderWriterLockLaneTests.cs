using System.Reflection;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// The shared lane of work-sharing <see cref="PipeKind.ReaderWriterLockQueue"/> consumers, which share one wake-up event.
/// A consumer that made its first look before the close resets the event after the close set it, then exits on its second
/// look; a consumer already waiting must still wake. The test plays that consumer's reset itself (the event is private),
/// so the interleaving that stranded a consumer in a stress run happens every time here.
/// </summary>
public sealed class ReaderWriterLockLaneTests
{
    [Fact]
    public async Task TryTake_CloseSwallowedByAnotherConsumersReset_WaitingConsumerStillWakesAndExits()
    {
        var lane = new ReaderWriterLockQueuePipe<long>.Lane();
        var took = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        var consumer = new Thread(() => took.SetResult(lane.TryTake(out _))) { IsBackground = true, Name = "waiting consumer" };
        consumer.Start();
        Assert.True(
            SpinWait.SpinUntil(() => (consumer.ThreadState & ThreadState.WaitSleepJoin) != 0, TestTimeouts.Default),
            "the consumer never waited");

        var posted = PostedEvent(lane);      // found first: reflection is slow enough to let the woken consumer run
        lane.Close();
        posted.Reset();                      // the other consumer's reset, right after the close's set
        var otherTook = lane.TryTake(out _); // ... and its look, which sees the close

        Assert.False(otherTook);
        Assert.False(await took.Task.DefaultTimeout()); // the waiting consumer wakes, finds the lane closed and empty, exits
    }

    private static ManualResetEventSlim PostedEvent(ReaderWriterLockQueuePipe<long>.Lane lane)
        => (ManualResetEventSlim)typeof(ReaderWriterLockQueuePipe<long>.Lane)
            .GetField("_posted", BindingFlags.NonPublic | BindingFlags.Instance)!
            .GetValue(lane)!;
}
