using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// An actor's mailbox: its queue (<typeparamref name="TQueue"/>, held in place) and the <see cref="TurnRunner"/>'s turn
/// over it, which hands what it takes to the actor's <see cref="ActorCell{T}"/>. A post that finds the actor idle
/// schedules one turn (the queue decides, see <see cref="ITurnQueue{T}"/>, so a turn is never queued twice nor missed); a
/// turn handles up to the throughput, then queues the next turn if more is waiting or goes idle. At most one turn runs at
/// a time, so the fields marked "turn" need no lock, and the actor handles one message at a time. Actors take the runner's
/// run-next slot. What a refused post means (a dead letter, a full mailbox to reject or wait on) is the address's to say
/// (<see cref="LocalActorRef{T, TQueue}"/>); the mailbox only posts.
/// </summary>
/// <typeparam name="T">The actor's message type.</typeparam>
/// <typeparam name="TQueue">The queue: a struct, so the mailbox and the runner's loop are compiled for it and its calls are direct.</typeparam>
/// <remarks>
/// A handler that returns before its work is done (<see cref="AsyncActor{T}"/>, whose <c>ReceiveAsync</c> awaits) ends
/// the turn without going idle: the queue still counts the actor as scheduled, so posts only enqueue, and nothing else is
/// handled. The turn's last act is to have the cell hang <see cref="Schedule"/> on the handler's task; the next turn first
/// ends that message (a failure goes to the supervisor), then goes on with the batch. The handler's own code after its
/// await is then the only code touching the actor, so the "turn" fields keep one owner.
/// </remarks>
internal sealed class Mailbox<T, TQueue> : ITurn
    where TQueue : struct, IMailboxQueue<T>
{
    private readonly ActorCell<T> _cell;              // what the turn hands messages to
    private TQueue _queue;                            // used in place: posts go in on any thread, the turn takes
    private TurnBatch<Envelope<T>> _batch = new();    // turn: messages taken but not yet handled
    private long _handled;                            // turn: a plain add once per turn (see TurnRunner.Run); read by anyone (Volatile)

    public Mailbox(ActorCell<T> cell, ActorOptions options)
    {
        _cell = cell;
        _queue.Open(options, this);
    }

    /// <summary>Gets the actor's cell, which the turn hands messages to; for the address, which reads its state.</summary>
    public ActorCell<T> Cell => _cell;

    /// <summary>Gets how many messages the actor's handler returned from (see <see cref="ActorInstruments"/>).</summary>
    public long HandledCount => Volatile.Read(ref _handled);

    /// <summary>Offers a message without waiting; an idle actor is scheduled. Any thread.</summary>
    /// <returns><see langword="false"/> if the queue is full or closed.</returns>
    public bool TryPost(in Envelope<T> envelope) => _queue.TryPost(in envelope, this);

    /// <summary>Posts, waiting asynchronously while the queue is full.</summary>
    /// <returns><see langword="false"/> if the queue closed first.</returns>
    public async ValueTask<bool> PostWaitingAsync(Envelope<T> envelope, CancellationToken cancellationToken)
    {
        while (!_queue.TryPost(in envelope, this))
        {
            switch (await _queue.WaitForRoomAsync(envelope, cancellationToken).ConfigureAwait(false))
            {
                case RoomWait.Posted:
                    _queue.WakeAfterWait(this);
                    return true;
                case RoomWait.Closed:
                    return false;
            }
        }

        return true;
    }

    /// <summary>
    /// Refuses further posts: the turn drains or discards what was accepted, then finds the queue completed. Called once,
    /// by whoever stopped the actor: its address, or the turn whose supervisor stopped it.
    /// </summary>
    public void Close() => _queue.Close(this);

    public void Schedule() => TurnRunner.Schedule(this, mayRunNext: true);

    public void Execute() => TurnRunner.RunChained<DirectTurn>(this);

    /// <summary>One turn: first ends the message whose handler awaited, if any, then lets the runner take and hand over up to the throughput.</summary>
    public void RunTurn()
    {
        if (_cell.IsAwaiting && _cell.EndAwaited())
        {
            Close(); // the supervisor stopped the actor
        }

        var delivery = new Delivery(this, _cell);
        TurnRunner.Run(this, ref _queue, ref delivery, ref _batch, _cell.Throughput);
    }

    /// <summary>A chain's direct call to a mailbox of this type (see <see cref="TurnRunner.RunChained{TDirect}"/>).</summary>
    private readonly struct DirectTurn : IDirectTurn
    {
        public static bool TryRunTurn(ITurn turn)
        {
            if (turn is Mailbox<T, TQueue> mailbox)
            {
                mailbox.RunTurn();
                return true;
            }

            return false;
        }
    }

    /// <summary>
    /// The mailbox as the <see cref="TurnRunner"/>'s owner: messages go to the cell, which hands them to the behaviour and
    /// its throws to the supervisor; once the cell discards, messages are dead letters; an async handler that awaits
    /// suspends the turn. Holds the cell beside the mailbox so that the turn reaches it without a load per message.
    /// </summary>
    private readonly struct Delivery(Mailbox<T, TQueue> mailbox, ActorCell<T> cell) : ITurnOwner<Envelope<T>>
    {
        public bool LooksBeforeIdle => false; // an actor's partner is usually woken through the run-next slot, not spinning

        public bool IsStopping => cell.IsDiscarding;

        public bool IsSuspended => cell.IsAwaiting;

        [MethodImpl(MethodImplOptions.AggressiveOptimization)] // the batch path, runner to behaviour: see Actor<T>.ReceiveBatch
        public void Deliver(Slot<Envelope<T>>[] batch, ref int next, int end) => cell.Deliver(batch, ref next, end);

        public void DeliverOne(in Envelope<T> message) => cell.DeliverOne(in message);

        public void Handled(int count) => Volatile.Write(ref mailbox._handled, mailbox._handled + count); // one turn at a time: one writer

        public void Unhandled(Slot<Envelope<T>>[] batch, int next, int end) => cell.Discard(batch.AsSpan(next, end - next));

        public void UnhandledOne(in Envelope<T> message) => cell.Discard(in message);

        public void Failed(Exception exception)
        {
            if (cell.Failed(exception))
            {
                mailbox.Close(); // the supervisor stopped the actor
            }
        }

        public void Suspended() => cell.ResumeWhenHandled(mailbox);

        public void Completed() => cell.Terminate();

        public void QueueFailed(Exception exception)
        {
            if (cell.QueueFailed(exception))
            {
                mailbox.Close(); // later posts are refused as dead letters, before the termination is seen
            }

            cell.Terminate();
        }
    }
}
