namespace Concurrency.Messaging.Sequences;

/// <summary>A request as an event, for the kinds that dispatch events to a handler (the actor and the locker).</summary>
/// <param name="IsUpdate"><see langword="true"/> for an update, <see langword="false"/> for a next.</param>
/// <param name="Value">The update's value; 0 for a next.</param>
internal readonly record struct SequenceEvent(bool IsUpdate, long Value)
{
    public static SequenceEvent Next => default;

    public static SequenceEvent Update(long value) => new(IsUpdate: true, value);
}
