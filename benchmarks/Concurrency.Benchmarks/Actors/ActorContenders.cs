using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Builds actor contenders, and names those the actor scenarios measure.</summary>
internal static class ActorContenders
{
    /// <summary>Gets the contenders every actor scenario runs (its [ParamsSource]).</summary>
    public static IReadOnlyList<ActorContenderKind> Measured { get; } =
        [ActorContenderKind.BatchDrainMailbox, ActorContenderKind.ChannelMailbox, ActorContenderKind.AkkaNet, ActorContenderKind.ProtoActor];

    /// <summary>A new actor system of the given kind, each at its own default dispatcher throughput.</summary>
    public static IActorContender Create(ActorContenderKind kind) => kind switch
    {
        ActorContenderKind.AkkaNet => new AkkaContender(),
        ActorContenderKind.ProtoActor => new ProtoActorContender(),
        ActorContenderKind.BatchDrainMailbox => new MessagingActorsContender(MailboxKind.BatchDrain),
        ActorContenderKind.ChannelMailbox => new MessagingActorsContender(MailboxKind.BoundedChannel),
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Unknown actor contender."),
    };

    /// <summary>A new actor system of the given kind for the footprint command.</summary>
    public static IFootprintContender CreateFootprint(ActorContenderKind kind) => kind switch
    {
        ActorContenderKind.BatchDrainMailbox => new MessagingFootprint(MailboxKind.BatchDrain),
        ActorContenderKind.ChannelMailbox => new MessagingFootprint(MailboxKind.BoundedChannel),
        ActorContenderKind.AkkaNet => new AkkaFootprint(),
        ActorContenderKind.ProtoActor => new ProtoActorFootprint(),
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Unknown actor contender."),
    };
}
