using Concurrency.Messaging.Workers;
using Xunit;

namespace Concurrency.Messaging.Tests.Workers;

/// <summary>The pools' counters on the library's meter, read as a user would with a <see cref="System.Diagnostics.Metrics.MeterListener"/>.</summary>
public sealed class WorkerPoolInstrumentsTests
{
    [Fact]
    public async Task Meter_TasksRunAndFail_CountersAndGaugesShowThem()
    {
        using var recorder = new MeterRecorder();
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

        // Other tests' pools run beside this one: at least what this pool did.
        Assert.True(recorder.Total("concurrency.workers.tasks.completed") >= 100);
        Assert.True(recorder.Total("concurrency.workers.tasks.failed") >= 10);
        Assert.True(recorder.Observe("concurrency.workers.alive") >= 2); // its minimum, never retired
        Assert.Contains("concurrency.workers.idle", recorder.Instruments.Keys);
        Assert.Contains("concurrency.workers.tasks.queued", recorder.Instruments.Keys);
        Assert.Contains("concurrency.workers.created", recorder.Instruments.Keys);
        Assert.Contains("concurrency.workers.retired", recorder.Instruments.Keys);
    }
}
