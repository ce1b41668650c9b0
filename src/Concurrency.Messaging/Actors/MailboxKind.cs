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

    /// <summary>
    /// The batch-drain queue with a capacity: <see cref="ActorOptions.Capacity"/> messages waiting (default 1024), and
    /// <see cref="ActorOptions.FullMode"/> when it is full, as for <see cref="BoundedChannel"/>. A post reserves a place with
    /// one more compare-and-swap than <see cref="BatchDrain"/>'s; a turn frees the places of what it took.
    /// </summary>
    BoundedBatchDrain,
}
