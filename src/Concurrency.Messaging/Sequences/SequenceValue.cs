using System.Diagnostics;

namespace Concurrency.Messaging.Sequences;

/// <summary>
/// The sequence's arithmetic, with no synchronization of its own: the service that holds it guards it (a lock, a mutex,
/// or an actor's turn). A mutable struct: keep it in a field that is not readonly and call it in place.
/// </summary>
internal struct SequenceValue
{
    private long _last; // guarded by the holder: the last identity handed out or the highest update applied, 0 at first

    public static InvalidOperationException Exhausted() =>
        new("The sequence reached long.MaxValue: it has no identity left to hand out.");

    /// <summary>Raises the value by one and returns it; <see langword="false"/>, changing nothing, at <see cref="long.MaxValue"/>.</summary>
    public bool TryNext(out long identity)
    {
        if (_last == long.MaxValue)
        {
            identity = 0;
            return false;
        }

        identity = ++_last;
        return true;
    }

    /// <summary>Raises the value to <paramref name="value"/> if that is larger; returns the value after.</summary>
    public long Raise(long value)
    {
        Debug.Assert(value >= 0, "The services validate update values before they reach the sequence.");
        if (value > _last)
        {
            _last = value;
        }

        return _last;
    }

    /// <summary>Handles one event: the reply to a next is the identity, to an update the value after it.</summary>
    /// <returns><see langword="false"/> if a next found the sequence exhausted.</returns>
    public bool TryHandle(SequenceEvent request, out long reply)
    {
        if (request.IsUpdate)
        {
            reply = Raise(request.Value);
            return true;
        }

        return TryNext(out reply);
    }
}
