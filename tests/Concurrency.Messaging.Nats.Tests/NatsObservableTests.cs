using System.Collections.Concurrent;

namespace Concurrency.Messaging.Nats.Tests;

/// <summary>An Rx stream carried between processes: an observer that publishes, an observable that consumes, and the Subject connector over both.</summary>
public sealed class NatsObservableTests
{
    private static NatsPipeOptions Options(string subject, string group = "rx") => new()
    {
        Subject = subject,
        Delivery = NatsDelivery.JetStream,
        Group = group,
        ExpectedProducers = 1,
        ServerTimeout = TimeSpan.FromSeconds(10),
    };

    [Fact]
    public async Task An_observer_that_publishes_and_an_observable_that_consumes_carry_every_value_in_order_and_the_completion()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var producing = server.Connect("producing");
        await using var consuming = server.Connect("consuming");
        var options = Options("rx.values");
        var seen = new ConcurrentQueue<string>();
        var completed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var subscription = NatsObservable.Observe<string>(consuming, options).Subscribe(new Observer<string>(seen.Enqueue, completed));

        await using var producer = await NatsPipe.StartProducerAsync<string>(producing, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        var observer = producer.AsObserver();
        await Task.Run(
            () =>
            {
                for (var i = 1; i <= 1_000; i++)
                {
                    observer.OnNext($"value {i}");
                }

                observer.OnCompleted();
                observer.OnNext("after completion: ignored");
            },
            TestContext.Current.CancellationToken).DefaultTimeout();

        await completed.Task.DefaultTimeout();
        Assert.Equal(Enumerable.Range(1, 1_000).Select(i => $"value {i}"), seen);
        Assert.Equal(1_000, producer.Confirmed);
    }

    [Fact]
    public async Task A_subscription_that_cannot_start_ends_in_OnError_and_a_disposed_one_hears_nothing_more()
    {
        await using var nowhere = new NatsConnection(NatsOpts.Default with { Url = "nats://127.0.0.1:1" });
        var failed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using (NatsObservable.Observe<string>(nowhere, Options("rx.nowhere") with { ServerTimeout = TimeSpan.FromMilliseconds(500) }).Subscribe(new Observer<string>(_ => { }, failed)))
        {
            var error = await Assert.ThrowsAsync<NatsPipeException>(() => failed.Task.DefaultTimeout());
            Assert.Contains("127.0.0.1:1", error.Message, StringComparison.Ordinal);
        }

        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("both");
        var options = Options("rx.disposed") with { ExpectedProducers = null };
        var count = 0;
        var first = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var ended = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var subscription = NatsObservable.Observe<string>(connection, options).Subscribe(new Observer<string>(_ => { Interlocked.Increment(ref count); first.TrySetResult(); }, ended));
        await using var producer = await NatsPipe.StartProducerAsync<string>(connection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await producer.PostAsync("one", TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        await first.Task.DefaultTimeout();
        subscription.Dispose();
        var atDisposal = Volatile.Read(ref count);
        for (var i = 0; i < 100; i++)
        {
            await producer.PostAsync("more", TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        }

        await producer.CompleteAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        await connection.PingAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        Assert.Equal(atDisposal, Volatile.Read(ref count));
        Assert.False(ended.Task.IsCompleted);
    }

    [Fact]
    public async Task The_subject_connector_serializes_concurrent_producers_and_completes_its_subscribers()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("connector");
        using var connector = await NatsConnector.StartAsync<string>(connection, Options("rx.connector"), cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        var seen = new ConcurrentQueue<string>();
        var completed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var subscription = connector.Output.Subscribe(new Observer<string>(seen.Enqueue, completed));
        Assert.Equal(1, connector.SubscriberCount);

        // Two threads at once on one input: posts of one producer must not overlap, so the connector takes them in turn.
        await Task.WhenAll(Enumerable.Range(0, 2).Select(t => Task.Run(
            () =>
            {
                for (var i = 0; i < 500; i++)
                {
                    connector.Input.OnNext($"{t}:{i}");
                }
            },
            TestContext.Current.CancellationToken))).DefaultTimeout();
        connector.Input.OnCompleted();

        await completed.Task.DefaultTimeout();
        Assert.Equal(1_000, seen.Distinct().Count());
        foreach (var thread in new[] { "0:", "1:" })
        {
            // Each producing thread's values in its own order.
            Assert.Equal(Enumerable.Range(0, 500).Select(i => thread + i), seen.Where(v => v.StartsWith(thread, StringComparison.Ordinal)));
        }

        subscription.Dispose();
        Assert.Equal(0, connector.SubscriberCount);
    }

    private sealed class Observer<T>(Action<T> next, TaskCompletionSource end) : IObserver<T>
    {
        public void OnNext(T value) => next(value);

        public void OnCompleted() => end.TrySetResult();

        public void OnError(Exception error) => end.TrySetException(error);
    }
}
