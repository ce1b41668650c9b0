namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>Producers that start together and each post (or tell) their own numbered sequence (<see cref="DeliveryLog.Message"/>).</summary>
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

    /// <summary>
    /// Runs <paramref name="senders"/> senders at once, each telling <paramref name="actor"/> its <paramref name="perSender"/>
    /// messages in order, and waits (bounded) for them all. A sender waits for room in a full mailbox with
    /// <see cref="ActorRef{T}.TellAsync"/> on the pool, or, <paramref name="blocking"/>, with <see cref="ActorRef{T}.Tell"/> on
    /// a thread of its own (a blocking Tell on pool threads would wait on the pool for the continuation that frees it).
    /// </summary>
    public static async Task TellAsync(ActorRef<long> actor, int senders, int perSender, bool blocking = false)
    {
        var ct = TestContext.Current.CancellationToken;
        var sends = Enumerable.Range(0, senders).Select(s => blocking
            ? Task.Factory.StartNew(
                () =>
                {
                    for (var i = 0; i < perSender; i++)
                    {
                        actor.Tell(DeliveryLog.Message(s, i));
                    }
                },
                ct,
                TaskCreationOptions.LongRunning,
                TaskScheduler.Default)
            : Task.Run(
                async () =>
                {
                    for (var i = 0; i < perSender; i++)
                    {
                        await actor.TellAsync(DeliveryLog.Message(s, i), ct);
                    }
                },
                ct));
        await Task.WhenAll(sends).DefaultTimeout();
    }
}
