using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// A mailbox on the pipes' batch-drain queue: a post is a compare-and-swap, a few stores and a release store, and finds out
/// under the same lock whether the actor is idle and needs a turn; a turn swaps out everything waiting in one step.
/// </summary>
internal sealed class BatchDrainMailbox<T> : Mailbox<T>
{
    private BatchDrainQueue<Envelope<T>> _queue; // inline, used in place: the mailbox is one object

    public BatchDrainMailbox(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id)
        : base(system, factory, options, id) => _queue.UseScheduledConsumer(this);

    public override MailboxKind MailboxKind => MailboxKind.BatchDrain;

    protected override bool TryPost(in Envelope<T> envelope, out bool full)
    {
        full = false;
        return _queue.TryEnqueue(envelope);
    }

    protected override ValueTask<bool> PostWaitingAsync(Envelope<T> envelope, CancellationToken cancellationToken) =>
        new(_queue.TryEnqueue(envelope));

    internal override void CloseQueue() => _queue.Close();

    public override void RunTurn() => RunTurn(ref _queue);
}
