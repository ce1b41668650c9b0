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
        // Hold both consumers inside their first message, so every lane fills alike, then fill them.
        await using var held = await HeldFullPipe.FillAsync(name);
        var (kind, pipe) = (held.Kind, held.Pipe);

        // Returns once the Post is parked waiting for room, so the TryPost below really runs beside a waiting Post.
        var waiting = await BlockedThread.StartAsync(() => pipe.Post(-1, TestContext.Current.CancellationToken));

        // With a Ring the second poster is a concurrent producer: it may be refused with that error, never blocked.
        var tryPost = Task.Factory.StartNew(
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
            TestContext.Current.CancellationToken,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);
        Assert.False(await tryPost.DefaultTimeout(), "TryPost accepted a message while the pipe was full");
        Assert.False(waiting.IsCompleted, $"the waiting Post finished early: {waiting.Status} {waiting.Exception?.InnerException}");

        held.Release();
        await waiting.DefaultTimeout();
    }
}
