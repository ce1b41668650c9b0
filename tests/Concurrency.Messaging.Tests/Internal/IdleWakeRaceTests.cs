using System.Diagnostics;
using Concurrency.Messaging.Tests.Actors;

namespace Concurrency.Messaging.Tests.Internal;

/// <summary>
/// The queue contract's promise, for every queue the turn runner takes from (each pipe kind under either runner, each
/// mailbox): a take that finds nothing marks the consumer idle atomically, so a post racing it is never stranded, whether
/// going idle ends a pool turn or parks a dedicated thread. Each producer posts one message and waits until it is handled before the next, so
/// the consumer runs dry and goes idle on nearly every message while other producers post into that very moment. A lost
/// wake-up strands a message, and its producer's bounded wait fails the test; the sum proves nothing was handled twice.
/// </summary>
public sealed class IdleWakeRaceTests
{
    private const int Rounds = 300;

    private static readonly TimeSpan LostWakeUp = TimeSpan.FromSeconds(10);

    public static TheoryData<string> Consumers =>
    [
        "BatchDrainQueue", "BatchDrainQueue shared", "Ring", "ReaderWriterLockQueue", "ReaderWriterLockQueue shared",
        "BlockingCollection", "BlockingCollection shared", "Channel", "Channel shared", "Channel bounded",
        "BatchDrain mailbox", "BoundedBatchDrain mailbox", "BoundedChannel mailbox",
    ];

    public static TheoryData<string> DedicatedConsumers =>
    [
        "BatchDrainQueue", "BatchDrainQueue shared", "Ring", "ReaderWriterLockQueue", "ReaderWriterLockQueue shared",
        "BlockingCollection", "BlockingCollection shared", "Channel", "Channel shared", "Channel bounded",
    ];

    [Theory]
    [MemberData(nameof(Consumers))]
    public Task Post_ProducersRacingTheConsumerIntoIdle_NoWakeUpLost(string consumer)
        => RaceAsync(consumer, PipeRunner.ThreadPool);

    [Theory]
    [MemberData(nameof(DedicatedConsumers))]
    public Task Post_ProducersRacingTheDedicatedConsumerIntoItsPark_NoWakeUpLost(string consumer)
        => RaceAsync(consumer, PipeRunner.DedicatedThread);

    private static async Task RaceAsync(string consumer, PipeRunner runner)
    {
        var producers = consumer == "Ring" ? 1 : 3; // a ring takes one producer
        var handledRound = new long[producers];     // per producer: the last round handled (one in flight each)
        var sum = 0L;
        void Handle(long message)
        {
            Interlocked.Add(ref sum, message);
            Volatile.Write(ref handledRound[message % producers], (message / producers) + 1);
        }

        var (post, finish) = Start(consumer, runner, producers, Handle);
        var running = new Task[producers];
        for (var p = 0; p < producers; p++)
        {
            var producer = p;
            running[p] = Task.Factory.StartNew(() => Produce(producer, producers, handledRound, post), TaskCreationOptions.LongRunning);
        }

        await Task.WhenAll(running).DefaultTimeout();
        await finish().DefaultTimeout();

        var messages = (long)Rounds * producers;
        Assert.Equal(messages * (messages - 1) / 2, Interlocked.Read(ref sum));
    }

    private static void Produce(int producer, int producers, long[] handledRound, Func<long, bool> post)
    {
        for (var round = 0; round < Rounds; round++)
        {
            Assert.True(post(((long)round * producers) + producer));
            var waited = Stopwatch.StartNew();
            var spinner = default(SpinWait);
            while (Volatile.Read(ref handledRound[producer]) <= round)
            {
                if (waited.Elapsed > LostWakeUp)
                {
                    Assert.Fail($"Producer {producer}'s message of round {round} was never handled: a wake-up was lost.");
                }

                spinner.SpinOnce();
            }
        }
    }

    private static (Func<long, bool> Post, Func<Task> Finish) Start(string consumer, PipeRunner runner, int producers, Action<long> handle)
    {
        if (consumer.EndsWith(" mailbox", StringComparison.Ordinal))
        {
            var system = new ActorSystem();
            var actor = system.Spawn(
                () => new DelegateActor<long>((_, message) => handle(message)),
                new ActorOptions { Mailbox = Enum.Parse<MailboxKind>(consumer[..consumer.IndexOf(' ', StringComparison.Ordinal)]) });
            return (actor.TryTell, async () =>
            {
                await actor.StopAsync(ActorStopMode.Drain, TestContext.Current.CancellationToken);
                await system.DisposeAsync();
            });
        }

        var words = consumer.Split(' ');
        var shared = words.Length > 1 && words[1] == "shared";
        var options = new PipeOptions
        {
            Runner = runner,
            Producers = producers,
            Distribution = shared ? PipeDistribution.WorkSharing : PipeDistribution.Broadcast,
            Capacity = words.Length > 1 && words[1] == "bounded" ? 4 : null,
        };
        Action<long>[] handlers = shared ? [handle, handle] : [handle];
        var pipe = Pipe.Create(Enum.Parse<PipeKind>(words[0]), handlers, options);
        return (pipe.TryPost, async () =>
        {
            pipe.Complete();
            await pipe.Completion;
        });
    }
}
