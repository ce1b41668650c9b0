using System.Runtime.CompilerServices;
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
    private ActorContext<T> _context; // set once, before the first message, by the cell that runs this actor: its one way to the cell

    /// <summary>Gets the running actor's context: itself, and the reply to the request being handled.</summary>
    /// <exception cref="InvalidOperationException">The actor was not spawned by an <see cref="ActorSystem"/>.</exception>
    protected ActorContext<T> Context =>
        _context.IsAttached ? _context : throw new InvalidOperationException("The actor is not running: spawn it with ActorSystem.Spawn.");

    /// <summary>Handles one message. A throw goes to the actor's supervisor (see <see cref="ActorOptions.Supervisor"/>).</summary>
    /// <param name="message">The message.</param>
    protected internal abstract void Receive(T message);

    /// <summary>Gives the behaviour its context: once, before its first message.</summary>
    internal void Attach(ActorContext<T> context) => _context = context;

    /// <summary>
    /// Handles the messages in <paramref name="batch"/> from <paramref name="next"/> to <paramref name="end"/>, advancing
    /// <paramref name="next"/> past each message before handing it over, so that after a throw it points past the message
    /// (or the run) that threw. Stops early once the actor discards, or when a handler awaits.
    /// </summary>
    // Compiled fully optimised at its first call: a batch holds at most the throughput, so this loop never runs long enough
    // for on-stack replacement, and as tier-0 code it would carry every backlog until the runtime promotes it, which a program
    // that first plays one message at a time reaches only seconds later (ping-pong: 1 in flight, then 100). The handler's own
    // call keeps its tiering: Receive is the behaviour's, compiled and profiled as the user's code.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal virtual void ReceiveBatch(Slot<Envelope<T>>[] batch, ref int next, int end)
    {
        while (next < end && !_context.IsDiscarding)
        {
            if (!ReceiveOne(in batch[next++].Value))
            {
                return;
            }
        }
    }

    /// <summary>Handles one message with its request's reply pending; a request left unanswered fails its caller at once.</summary>
    /// <returns><see langword="false"/> if the handler is still running (an async handler awaits): the turn must end, and
    /// the next one finishes the message when the handler completes.</returns>
    internal bool ReceiveOne(in Envelope<T> envelope)
    {
        var context = _context;
        context.BeginMessage(envelope.Reply);
        Receive(envelope.Message);
        return context.EndMessage();
    }
}
