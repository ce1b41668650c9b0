namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// An idle pipe parks its consumers (no CPU until woken) and a parked consumer still wakes for the next message. What an
/// idle pipe costs in CPU is measured by the benchmark program's idle command, not asserted here.
/// </summary>
public sealed class IdlePipeTests
{
    [Fact]
    public async Task RingPipes_Idle_EveryConsumerParksAndWakesForTheNextMessage()
    {
        const int pipes = 100;
        var handled = 0;
        var rings = Enumerable.Range(0, pipes)
            .Select(_ => (RingPipe<long>)Pipe.Create<long>(PipeKind.Ring, _ => Interlocked.Increment(ref handled)))
            .ToArray();
        try
        {
            foreach (var ring in rings)
            {
                ring.Post(1, TestContext.Current.CancellationToken);
            }

            Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref handled) == pipes && rings.All(r => r.AllConsumersParked), TestTimeouts.Default));

            foreach (var ring in rings)
            {
                ring.Post(2, TestContext.Current.CancellationToken);
            }

            Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref handled) == 2 * pipes, TestTimeouts.Default));
        }
        finally
        {
            foreach (var ring in rings)
            {
                await ring.DisposeAsync();
            }
        }

        Assert.All(rings, r => Assert.True(r.Completion.IsCompletedSuccessfully));
    }
}
