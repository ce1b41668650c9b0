using Concurrency.Messaging.Pipes;
using Xunit;

namespace Concurrency.Messaging.Tests.Races;

/// <summary>
/// A post that waits for room must not hold up posts that do not wait: TryPost answers at once, whatever a blocked Post
/// on another thread is doing.
/// </summary>
public sealed class GateTests
{
    [Theory]
    [InlineData("BlockingCollection-4")]
    [InlineData("Channel-4")]
    [InlineData("Ring-4")]
    public async Task TryPost_WhileAnotherThreadsPostWaitsForRoom_AnswersAtOnce(string name)
    {
        var (kind, options) = RaceKinds.Parse(name);
        using var release = new ManualResetEventSlim(false);
        using var holding = new ManualResetEventSlim(false);
        await using var pipe = Pipe.Create<long>(
            kind,
            [_ => { holding.Set(); Assert.True(release.Wait(TestTimeouts.Default)); }, _ => { }],
            options);

        // Hold the first consumer inside its first message, then fill its lane.
        pipe.Post(0, TestContext.Current.CancellationToken);
        Assert.True(holding.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken));
        var next = 1L;
        while (pipe.TryPost(next))
        {
            next++;
        }

        var waiting = Task.Factory.StartNew(
            () => pipe.Post(-1, TestContext.Current.CancellationToken),
            TestContext.Current.CancellationToken,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

        // With a Ring the second poster is a concurrent producer: it may be refused with that error, never blocked.
        var tryPost = Task.Run(
            () =>
            {
                try
                {
                    return pipe.TryPost(-2);
                }
                catch (InvalidOperationException) when (kind == PipeKind.Ring)
                {
                    return false;
                }
            },
            TestContext.Current.CancellationToken);
        Assert.False(await tryPost.DefaultTimeout());
        Assert.False(waiting.IsCompleted);

        release.Set();
        await waiting.DefaultTimeout();
    }
}
