using Concurrency.Messaging.Actors;

namespace Concurrency.Messaging.Sequences;

/// <summary>The actor behind the <see cref="SequenceServiceKind.Actor"/> kind: handles each event on its turn and replies.</summary>
internal sealed class SequenceActor : Actor<SequenceEvent>
{
    private SequenceValue _sequence; // the actor's turn only: one message at a time, so no lock

    protected internal override void Receive(SequenceEvent message)
    {
        if (_sequence.TryHandle(message, out var reply))
        {
            Context.Reply(reply);
        }
        else
        {
            // Fail the caller without throwing: a throw would go to the supervisor and be reported as an actor failure.
            Context.DeferReply<long>().TryFail(SequenceValue.Exhausted());
        }
    }
}
