using Concurrency.Messaging.Tests.Pipes;

namespace Concurrency.Messaging.Tests.Races;

/// <summary>
/// Producers post numbered messages while another thread completes or aborts the pipe part-way through; every consumer
/// checks each id off in a bitmap. Each producer retries a refused (or cancelled) message until the pipe is closed, so
/// what it got accepted is exactly its first <c>accepted[p]</c> messages, and the verdict is exact:
/// after a completion every consumer handled every accepted message exactly once and nothing else; after an abort nothing
/// was handled twice or unaccepted, and handled plus <see cref="IPipe{T}.UnhandledCount"/> equals what was accepted.
/// </summary>
internal sealed class CloseRace(PipeKind kind, PipeOptions options, int consumers, RaceEnd end, RacePost post)
{
    public async Task RunAsync(int perProducer, TimeSpan budget)
    {
        var producers = options.Producers;
        var sharing = options.Distribution == PipeDistribution.WorkSharing && consumers > 1;
        var logs = Enumerable.Range(0, consumers).Select(_ => new DeliveryLog(producers, perProducer)).ToArray();
        using var abort = new CancellationTokenSource();
        var pipe = Pipe.Create(
            kind,
            logs.Select(l => (Action<long>)l.Record).ToArray(),
            options with { AbortToken = end == RaceEnd.Abort ? abort.Token : default });

        var accepted = new int[producers];
        var closing = 0; // 1 once the closer has acted: from then a refusal ends a producer
        var closeAt = perProducer * producers / 2;
        long posted = 0;
        using var start = new Barrier(producers + 1);

        var producerTasks = Enumerable.Range(0, producers).Select(p => Task.Factory.StartNew(
            () =>
            {
                start.SignalAndWait(TestTimeouts.Default);
                var random = new Random(p);
                for (var i = 0; i < perProducer; i++)
                {
                    if (!Deliver(pipe, DeliveryLog.Message(p, i), random, ref closing))
                    {
                        return;
                    }

                    accepted[p] = i + 1;
                    Interlocked.Increment(ref posted);
                }
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default)).ToArray();

        var closer = Task.Factory.StartNew(
            () =>
            {
                start.SignalAndWait(TestTimeouts.Default);
                var spinner = default(SpinWait);
                while (Interlocked.Read(ref posted) < closeAt && !producerTasks.All(t => t.IsCompleted))
                {
                    spinner.SpinOnce();
                }

                if (end == RaceEnd.Complete)
                {
                    pipe.TryComplete();
                }
                else
                {
                    abort.Cancel();
                }

                Volatile.Write(ref closing, 1);
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

        await Task.WhenAll([.. producerTasks, closer]).WaitAsync(budget, TestContext.Current.CancellationToken);
        pipe.TryComplete();
        if (end == RaceEnd.Complete)
        {
            await pipe.Completion.WaitAsync(budget, TestContext.Current.CancellationToken);
        }
        else
        {
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => pipe.Completion.WaitAsync(budget, TestContext.Current.CancellationToken));
        }

        Verify(logs, accepted, perProducer, sharing, pipe.UnhandledCount);
    }

    private bool Deliver(IPipe<long> pipe, long message, Random random, ref int closing)
    {
        while (true)
        {
            if (post == RacePost.TryPost)
            {
                if (pipe.TryPost(message))
                {
                    return true;
                }
            }
            else
            {
                using var cancel = new CancellationTokenSource();
                cancel.CancelAfter(TimeSpan.FromTicks(random.Next(0, 20_000)));
                try
                {
                    pipe.PostAsync(message, cancel.Token).AsTask().GetAwaiter().GetResult();
                    return true;
                }
                catch (OperationCanceledException)
                {
                    // Not accepted: must have reached nobody. Retry the same message.
                }
                catch (PipeClosedException)
                {
                    return false;
                }
            }

            if (Volatile.Read(ref closing) != 0)
            {
                return false;
            }

            Thread.Yield();
        }
    }

    private void Verify(DeliveryLog[] logs, int[] accepted, int perProducer, bool sharing, long unhandled)
    {
        var expected = new int[accepted.Length * perProducer];
        for (var p = 0; p < accepted.Length; p++)
        {
            for (var i = 0; i < accepted[p]; i++)
            {
                expected[(p * perProducer) + i] = 1;
            }
        }

        var acceptedTotal = accepted.Sum(a => (long)a);
        if (sharing)
        {
            var seen = new int[expected.Length];
            foreach (var log in logs)
            {
                log.AddSeenTo(seen);
            }

            AssertSeen(seen, expected, perProducer, "the consumers together", end == RaceEnd.Abort);
            Assert.Equal(acceptedTotal, seen.Sum(s => (long)s) + unhandled);
        }
        else
        {
            for (var c = 0; c < logs.Length; c++)
            {
                var seen = new int[expected.Length];
                logs[c].AddSeenTo(seen);
                AssertSeen(seen, expected, perProducer, $"consumer {c}", end == RaceEnd.Abort);
                Assert.Equal(0, logs[c].OutOfOrder);
            }

            Assert.Equal(acceptedTotal * logs.Length, logs.Sum(l => l.Count) + unhandled);
        }

        if (end == RaceEnd.Complete)
        {
            Assert.Equal(0, unhandled);
        }
    }

    private static void AssertSeen(int[] seen, int[] expected, int perProducer, string who, bool mayMiss)
    {
        var anomalies = new List<string>();
        for (var i = 0; i < seen.Length && anomalies.Count < 10; i++)
        {
            var wrong = mayMiss ? seen[i] > expected[i] : seen[i] != expected[i];
            if (wrong)
            {
                anomalies.Add($"producer {i / perProducer} message {i % perProducer}: accepted {expected[i] == 1}, handled {seen[i]} times");
            }
        }

        Assert.True(anomalies.Count == 0, $"{who}: {string.Join("; ", anomalies)}");
    }
}
