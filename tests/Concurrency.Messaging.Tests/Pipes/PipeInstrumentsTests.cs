namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>The pipes' instruments on the library's meter, read as a user would with a <see cref="System.Diagnostics.Metrics.MeterListener"/>.</summary>
[Collection(nameof(LibraryInstruments))]
public sealed class PipeInstrumentsTests
{
    [Theory]
    [InlineData(PipeRunner.ThreadPool)]
    [InlineData(PipeRunner.DedicatedThread)]
    public async Task Meter_PipesHandleDropAndFault_ObservableCountersShowThem(PipeRunner runner)
    {
        using var recorder = new MeterRecorder();
        var handled = recorder.Observe("concurrency.pipe.messages.handled");
        var dropped = recorder.Observe("concurrency.pipe.messages.dropped");
        var unhandled = recorder.Observe("concurrency.pipe.messages.unhandled");

        // Handled: 100 messages through a pipe that completes, so its counts are in the retired totals, which never go back.
        await using (var handling = Pipe.Create<int>(PipeKind.BatchDrainQueue, _ => { }, new PipeOptions { Runner = runner }))
        {
            for (var i = 0; i < 100; i++)
            {
                handling.Post(i, TestContext.Current.CancellationToken);
            }

            handling.Complete();
            await handling.Completion.DefaultTimeout();
        }

        // Dropped: a bounded channel of 1 whose only consumer is held while 10 more come.
        using var release = new ManualResetEventSlim();
        using var holding = new ManualResetEventSlim();
        var dropping = Pipe.Create<int>(PipeKind.Channel, _ =>
        {
            holding.Set();
            release.Wait(TestTimeouts.Default);
        }, new PipeOptions { Capacity = 1, FullMode = PipeFullMode.DropNewest, Runner = runner });
        dropping.Post(0, TestContext.Current.CancellationToken);
        Assert.True(holding.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken), "The consumer never took the first message.");
        for (var i = 1; i <= 11; i++)
        {
            dropping.TryPost(i); // one waits in the channel, ten are dropped
        }

        release.Set();
        dropping.Complete();
        await dropping.Completion.DefaultTimeout();
        Assert.Equal(10, dropping.DroppedCount);

        // Unhandled: the first message throws; the other nine are left at the fault.
        var faulting = Pipe.Create<int>(PipeKind.BatchDrainQueue, _ => throw new InvalidOperationException("boom"), new PipeOptions { Runner = runner });
        var accepted = 0;
        for (var i = 0; i < 10 && faulting.TryPost(i); i++)
        {
            accepted++;
        }

        faulting.TryComplete();
        await Assert.ThrowsAsync<MessageHandlerException>(() => faulting.Completion.DefaultTimeout());
        Assert.Equal(accepted, faulting.UnhandledCount);

        // Alone in the process (LibraryInstruments): what these pipes did, no more. Handled: the 100, and the dropping
        // pipe's first and the one that waited; the faulting pipe's first threw, so it is unhandled, not handled.
        Assert.Equal(102, recorder.Observe("concurrency.pipe.messages.handled") - handled);
        Assert.Equal(10, recorder.Observe("concurrency.pipe.messages.dropped") - dropped);
        Assert.Equal(accepted, recorder.Observe("concurrency.pipe.messages.unhandled") - unhandled);
    }
}
