namespace Concurrency.Benchmarks.Actors;

/// <summary>Builds actor contenders, and names those the actor scenarios measure.</summary>
internal static class ActorContenders
{
    /// <summary>Gets the contenders every actor scenario runs (its [ParamsSource]); ours join when the library's actors land.</summary>
    public static IReadOnlyList<ActorContenderKind> Measured { get; } = [ActorContenderKind.AkkaNet, ActorContenderKind.ProtoActor];

    /// <summary>A new actor system of the given kind, each at its own default dispatcher throughput.</summary>
    public static IActorContender Create(ActorContenderKind kind) => kind switch
    {
        ActorContenderKind.AkkaNet => new AkkaContender(),
        ActorContenderKind.ProtoActor => new ProtoActorContender(),
        ActorContenderKind.BatchDrainMailbox or ActorContenderKind.ChannelMailbox
            => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Our actors are added when the library's actors land."),
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Unknown actor contender."),
    };
}
