using CsCheck;

namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// An aggregating actor reads in runs of what its turn took: the actor is held at a gate while the test queues a backlog,
/// so the next turn takes all of it at once and the runs it is handed are exactly determined.
/// </summary>
public sealed class AggregatingActorTests
{
    /// <summary>The mailboxes whose turns hand an aggregating actor the whole backlog they took.</summary>
    public static TheoryData<MailboxKind> Kinds => [MailboxKind.BatchDrain, MailboxKind.BoundedChannel];

    private static CancellationToken Cancellation => TestContext.Current.CancellationToken;

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ReceiveRun_BacklogOfTwoKeys_EachKeysRunInOneCall(MailboxKind kind)
    {
        var runs = await RunsOfBacklog(kind, ["a0", "a1", "a2", "a3", "b4", "b5", "b6"]);

        Assert.Equal([('a', 4), ('b', 3)], runs.Select(r => (r.Key, r.Messages.Length)));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ReceiveRun_KeysAlternate_RunsHandedOverInOrder(MailboxKind kind)
    {
        var runs = await RunsOfBacklog(kind, ["a0", "a1", "b2", "a3", "c4", "c5"]);

        Assert.Equal(
            [('a', ["a0", "a1"]), ('b', ["b2"]), ('a', ["a3"]), ('c', ["c4", "c5"])],
            runs.Select(r => (r.Key, r.Messages)));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ReceiveRun_RunLongerThanTheThroughput_SplitAtTheTurnsBudget(MailboxKind kind)
    {
        string[] sent = ["a0", "a1", "a2", "a3", "a4", "a5", "a6"];
        var runs = await RunsOfBacklog(kind, sent, throughput: 3);

        // The held message spent one of the first turn's three; after that a run is cut only where a turn's budget ends.
        Assert.Equal([2, 3, 2], runs.Select(r => r.Messages.Length));
        Assert.Equal(sent, runs.SelectMany(r => r.Messages));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ReceiveRun_AskInsideARun_IsARunOfItsOwn(MailboxKind kind)
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var runs = new List<(char Key, string[] Messages)>();
        var actor = system.Spawn(() => new RunRecorder(gate, runs), new ActorOptions { Mailbox = kind });

        await gate.HoldAsync(actor, RunRecorder.Hold);
        actor.Tell("a0");
        actor.Tell("a1");
        var ask = actor.Ask<int>("a2", Cancellation);
        actor.Tell("a3");
        gate.Open();

        Assert.Equal(1, await ask.AsTask().DefaultTimeout());
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();
        Assert.Equal([["a0", "a1"], ["a2"], ["a3"]], runs.Select(r => r.Messages));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ReceiveRun_OneMessage_HandledAloneWithoutWaitingForMore(MailboxKind kind)
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        using var recorded = new SemaphoreSlim(0);
        var runs = new List<(char Key, string[] Messages)>();
        var actor = system.Spawn(() => new RunRecorder(gate, runs, recorded), new ActorOptions { Mailbox = kind });

        // Nothing else is sent until the message was handled: an actor that waited to build a batch would never hand it over.
        actor.Tell("a0");
        Assert.True(await recorded.WaitAsync(TestTimeouts.Default, Cancellation));
        actor.Tell("a1");
        Assert.True(await recorded.WaitAsync(TestTimeouts.Default, Cancellation));
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal([["a0"], ["a1"]], runs.Select(r => r.Messages));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ReceiveRun_AnyBacklog_RunsConcatenateToWhatWasSentAndNeighboursDiffer(MailboxKind kind)
    {
        await Gen.Char["abc"].Array[0, 60].SampleAsync(
            async keys =>
            {
                var sent = keys.Select((key, i) => $"{key}{i}").ToArray();
                var runs = await RunsOfBacklog(kind, sent);

                Assert.Equal(sent, runs.SelectMany(r => r.Messages));
                Assert.All(runs, r => Assert.All(r.Messages, m => Assert.Equal(r.Key, m[0])));
                for (var i = 1; i < runs.Count; i++)
                {
                    Assert.NotEqual(runs[i - 1].Key, runs[i].Key);
                }
            },
            iter: 200);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ReceiveRun_KeyOfAMessageThrows_ThatMessageFailsAloneAndTheRestAreHandled(MailboxKind kind)
    {
        await using var system = new ActorSystem();

        // RunRecorder's key is a message's first character: the empty message's KeyOf throws, once while it would extend
        // the run of "a", once as the first of its own. The runs around it are handled; only it fails, and only once.
        var runs = await RunsOfBacklog(kind, ["a0", "a1", "", "b3", "b4"], system: system);

        Assert.Equal([('a', ["a0", "a1"]), ('b', ["b3", "b4"])], runs.Select(r => (r.Key, r.Messages)));
        Assert.Equal(1, system.FailureCount);
    }

    /// <summary>Holds the actor, queues <paramref name="backlog"/>, releases it, drains it, and returns the runs it was handed.</summary>
    private static async Task<List<(char Key, string[] Messages)>> RunsOfBacklog(
        MailboxKind kind, string[] backlog, int? throughput = null, ActorSystem? system = null)
    {
        await using var owned = system is null ? new ActorSystem() : null;
        system ??= owned!;
        using var gate = new HandlerGate();
        var runs = new List<(char Key, string[] Messages)>();
        var actor = system.Spawn(() => new RunRecorder(gate, runs), new ActorOptions { Mailbox = kind, Throughput = throughput });

        await gate.HoldAsync(actor, RunRecorder.Hold);
        foreach (var message in backlog)
        {
            actor.Tell(message);
        }

        gate.Open();
        await actor.StopAsync(ActorStopMode.Drain, TestContext.Current.CancellationToken).DefaultTimeout();
        return runs;
    }
}
