using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>How the actor game builds a contender: an actor system for the games, and one for the footprint command.</summary>
/// <param name="Bounded">
/// Whether its mailboxes are bounded: then an actor telling another from inside its turn is refused when the target is
/// full (MailboxFullException.InsideTurn, by design), so a game that relays an open-loop burst between actors leaves it out.
/// </param>
internal sealed record ActorBuild(Func<IActorContender> Create, Func<IFootprintContender> Footprint, bool Bounded = false);

/// <summary>
/// The actor game's contenders: our actors on each mailbox, each at its default dispatcher throughput, then the peers.
/// BenchmarkDotNet's actor scenarios and the footprint command enumerate it.
/// </summary>
internal static class ActorContenders
{
    public static ContenderRegistry<ActorBuild> Registry { get; } = new("actors",
    [
        Ours("BatchDrainMailbox", MailboxKind.BatchDrain),
        Ours("ChannelMailbox", MailboxKind.BoundedChannel),
        Ours("BoundedBatchDrainMailbox", MailboxKind.BoundedBatchDrain),
        Ours("AsyncReceive", MailboxKind.BatchDrain, MessagingReceive.Async),
        Ours("AsyncReceiveYielding", MailboxKind.BatchDrain, MessagingReceive.AsyncYielding),
        new("AkkaNet", ContenderFamily.ActorSystem, new ActorBuild(() => new AkkaContender(), () => new AkkaFootprint())) { Note = "Akka.NET" },
        new("ProtoActor", ContenderFamily.ActorSystem, new ActorBuild(() => new ProtoActorContender(), () => new ProtoActorFootprint())) { Note = "Proto.Actor" },
    ]);

    /// <summary>Gets every contender's name: the actor scenarios' [ParamsSource].</summary>
    public static IEnumerable<string> Names => Registry.Names;

    private static Contender<ActorBuild> Ours(string name, MailboxKind mailbox, MessagingReceive receive = MessagingReceive.Sync)
        => new(name, ContenderFamily.Ours, new ActorBuild(
            () => new MessagingActorsContender(mailbox, receive),
            () => new MessagingFootprint(mailbox, asyncReceive: receive != MessagingReceive.Sync),
            Bounded: mailbox is MailboxKind.BoundedChannel or MailboxKind.BoundedBatchDrain));
}
