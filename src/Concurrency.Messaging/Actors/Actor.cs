using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// An actor's behaviour: <see cref="Receive"/> handles one message at a time, never two at once, so the actor's state
/// needs no lock. Actors run as turns on a shared pool (an actor is not a thread); create one with
/// <see cref="ActorSystem.Spawn{T}(Func{Actor{T}}, ActorOptions?)"/>.
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
/// <remarks>
/// A handler must not block waiting for another actor (for example on <c>Ask(...).AsTask().Wait()</c>): an actor woken by
/// this turn runs next on this same thread, right after the turn (see the scheduler's run-next slot), so it cannot reply
/// while the turn blocks, and the wait ends only at its timeout. Await it instead, from an <see cref="AsyncActor{T}"/>'s
/// handler (the turn ends while it awaits), reply later with <see cref="ActorContext{T}.DeferReply{TReply}"/>, or tell the
/// other actor and handle its answer as a message. For the same
/// reason <see cref="ActorRef{T}.Tell"/> never waits inside a turn: into a full bounded mailbox it throws
/// <see cref="MailboxFullException"/> (use <see cref="ActorRef{T}.TryTell"/> where a full mailbox is expected).
/// </remarks>
public abstract class Actor<T>
{
    private LocalActorRef<T>? _self; // set once, before the first message, by the cell that runs this actor

    /// <summary>Gets the running actor's context: itself, and the reply to the request being handled.</summary>
    /// <exception cref="InvalidOperationException">The actor was not spawned by an <see cref="ActorSystem"/>.</exception>
    protected ActorContext<T> Context =>
        new(_self ?? throw new InvalidOperationException("The actor is not running: spawn it with ActorSystem.Spawn."));

    /// <summary>Handles one message. A throw goes to the actor's supervisor (see <see cref="ActorOptions.Supervisor"/>).</summary>
    /// <param name="message">The message.</param>
    protected internal abstract void Receive(T message);

    /// <summary>Gets the handle this actor answers to; set before its first message.</summary>
    internal LocalActorRef<T>? Self => _self;

    /// <summary>Gets the mailbox running this actor; set before its first message.</summary>
    internal Mailbox<T>? Mailbox => _self?.Mailbox;

    internal void Attach(LocalActorRef<T> self) => _self = self;

    /// <summary>
    /// Handles the messages in <paramref name="batch"/> from <paramref name="next"/> to <paramref name="end"/>, advancing
    /// <paramref name="next"/> past each message before handing it over, so that after a throw it points past the message
    /// (or the run) that threw.
    /// </summary>
    internal virtual void ReceiveBatch(Mailbox<T> mailbox, Slot<Envelope<T>>[] batch, ref int next, int end)
    {
        while (next < end && !mailbox.Cell.IsDiscarding)
        {
            if (!ReceiveOne(mailbox, in batch[next++].Value))
            {
                return;
            }
        }
    }

    /// <summary>Handles one message with its request's reply pending; a request left unanswered fails its caller at once.</summary>
    /// <returns><see langword="false"/> if the handler is still running (an async handler awaits): the turn must end, and
    /// the mailbox finishes the message when the handler completes.</returns>
    internal bool ReceiveOne(Mailbox<T> mailbox, in Envelope<T> envelope)
    {
        ref var cell = ref mailbox.Cell;
        cell.CurrentReply = envelope.Reply;
        Receive(envelope.Message);
        if (cell.IsAwaiting)
        {
            return false;
        }

        cell.AfterReceive(mailbox.Name);
        return true;
    }
}
