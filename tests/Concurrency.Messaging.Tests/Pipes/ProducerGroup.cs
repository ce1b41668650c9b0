namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>Producer threads that start together and each post their own numbered sequence.</summary>
internal static class ProducerGroup
{
    /// <summary>Runs <paramref name="producers"/> dedicated threads, released by one barrier, each posting <paramref name="perProducer"/> messages.</summary>
    public static async Task RunAsync(IPipe<long> pipe, int producers, int perProducer, TimeSpan? timeout = null)
    {
        using var start = new Barrier(producers);
        var tasks = Enumerable.Range(0, producers).Select(p => Task.Factory.StartNew(
            () =>
            {
                start.SignalAndWait(TestTimeouts.Default);
                for (var i = 0; i < perProducer; i++)
                {
                    pipe.Post(DeliveryLog.Message(p, i), TestContext.Current.CancellationToken);
                }
            },
            TestContext.Current.CancellationToken,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default)).ToArray();
        await Task.WhenAll(tasks).WaitAsync(timeout ?? TestTimeouts.Default, TestContext.Current.CancellationToken);
    }
}
