namespace Concurrency.Messaging.Actors;

/// <summary>The queue under an actor's mailbox.</summary>
public enum MailboxKind
{
    /// <summary>
    /// Ours: an unbounded multi-producer queue drained in one step (the batch-drain queue of the pipes): a post is a
    /// compare-and-swap, a few stores and a release store; a turn takes everything waiting in one swap.
    /// </summary>
    BatchDrain,

    /// <summary>The seed's: a bounded <c>System.Threading.Channels</c> channel, <see cref="ActorOptions.Capacity"/> messages (default 1024).</summary>
    BoundedChannel,
}
