namespace Concurrency.Benchmarks.Actors;

/// <summary>The actor systems the actor scenarios compare: our library's actors on each mailbox, then the peers.</summary>
public enum ActorContenderKind
{
    BatchDrainMailbox,
    ChannelMailbox,
    AkkaNet,
    ProtoActor,
}
