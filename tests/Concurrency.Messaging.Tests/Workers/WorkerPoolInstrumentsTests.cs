namespace Concurrency.Messaging.Tests.Workers;

/// <summary>The pools' counters on the library's meter, read as a user would with a <see cref="System.Diagnostics.Metrics.MeterListener"/>.</summary>
[Collection(nameof(LibraryInstruments))]
public sealed class WorkerPoolInstrumentsTests
{
    [Fact]
    public async Task Meter_TasksRunAndFail_CountersAndGaugesShowThem()
    {
        using var recorder = new MeterRecorder();
        var alive = recorder.Observe("concurrency.workers.alive");
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { MinWorkers = 2 });
        using var done = new CountdownEvent(100);
        for (var i = 0; i < 100; i++)
        {
            var fails = i % 10 == 0;
            pool.Post(() =>
            {
                done.Signal();
                if (fails)
                {
                    throw new InvalidOperationException("counted, not fatal");
                }
            });
        }

        Assert.True(done.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken), $"{done.CurrentCount} tasks never ran.");
        pool.WaitFor(m => m.TasksCompleted == 100);

        // Alone in the process (LibraryInstruments): what this pool did, no more.
        Assert.Equal(100, recorder.Total("concurrency.workers.tasks.completed"));
        Assert.Equal(10, recorder.Total("concurrency.workers.tasks.failed"));
        Assert.True(recorder.Observe("concurrency.workers.alive") - alive >= 2); // its minimum, never retired
        Assert.Contains("concurrency.workers.idle", recorder.Instruments.Keys);
        Assert.Contains("concurrency.workers.tasks.queued", recorder.Instruments.Keys);
        Assert.Contains("concurrency.workers.created", recorder.Instruments.Keys);
        Assert.Contains("concurrency.workers.retired", recorder.Instruments.Keys);
    }
}
