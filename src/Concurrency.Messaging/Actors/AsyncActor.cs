using System.Diagnostics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// An actor whose handler may await (I/O, an <c>Ask</c> to another actor, a timer): <see cref="ReceiveAsync"/> returns a
/// <see cref="ValueTask"/>, and the actor handles nothing else until it completes, as Akka.NET's and Proto.Actor's
/// <c>ReceiveAsync</c> do. While it awaits, the actor holds no thread: its turn ends, messages told meanwhile wait in the
/// mailbox, and the next turn starts when the handler completes. A handler that completes synchronously costs one
/// <see cref="ValueTask"/> check and allocates nothing.
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
/// <remarks>
/// <para>
/// A handler's exception, thrown before or after an await, goes to the supervisor as a synchronous handler's does, and
/// fails the <c>Ask</c> being handled. <see cref="ActorContext{T}.Reply{TReply}"/> works after an await: the request stays
/// the one being handled until the handler completes.
/// </para>
/// <para>
/// A stop (<see cref="ActorRef{T}.Stop"/>, <see cref="ActorContext{T}.Stop"/>) requested while the handler awaits takes
/// effect when the handler completes, as a stop during a synchronous handler does after it returns: the handler is not
/// interrupted, and <see cref="ActorRef{T}.Termination"/> waits for it. A handler that may wait long should take its own
/// cancellation. Awaiting an <c>Ask</c> to an actor that asks this one back waits until the Ask times out: this actor
/// handles nothing while it awaits.
/// </para>
/// <para>
/// After its first await a handler runs outside any turn, on whatever thread completed what it awaited, so a
/// <see cref="ActorRef{T}.Tell"/> into a full <see cref="MailboxFullMode.Wait"/> mailbox would block that thread: send with
/// <c>await TellAsync</c> there.
/// </para>
/// </remarks>
public abstract class AsyncActor<T> : Actor<T>
{
    private ValueTask _handling; // turn: the handler's task while it awaits; read once, by the turn that ends it
    private Action? _resume;     // created at the first await: schedules the mailbox's next turn

    /// <summary>Handles one message; the actor handles the next one only after the returned task completes.</summary>
    /// <param name="message">The message.</param>
    /// <returns>A task that completes when the message is handled; a fault goes to the actor's supervisor.</returns>
    protected abstract ValueTask ReceiveAsync(T message);

    /// <summary>Starts <see cref="ReceiveAsync"/>; if it did not complete, the mailbox ends the turn and resumes on completion.</summary>
    /// <param name="message">The message.</param>
    protected internal sealed override void Receive(T message)
    {
        var handling = ReceiveAsync(message);
        if (handling.IsCompleted)
        {
            handling.GetAwaiter().GetResult(); // throws a failure to the supervisor; releases a pooled task source
            return;
        }

        _handling = handling;
        Context.Suspend();
    }

    /// <summary>Hangs the next turn on the handler's completion: the turn's last act (see <see cref="ActorCell{T}.ResumeWhenHandled"/>).</summary>
    internal void ScheduleWhenHandled(ITurn next)
    {
        Debug.Assert(_resume is null || ReferenceEquals(_resume.Target, next), "An actor is run by one mailbox.");
        var resume = _resume ??= next.Schedule;
        _handling.ConfigureAwait(false).GetAwaiter().UnsafeOnCompleted(resume);
    }

    /// <summary>Ends the handling that completed: throws its failure, if any. Turn only, once per await.</summary>
    internal void EndHandling()
    {
        var handling = _handling;
        _handling = default;
        handling.GetAwaiter().GetResult();
    }
}
