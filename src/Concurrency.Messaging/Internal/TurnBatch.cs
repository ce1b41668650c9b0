using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// The messages a consumer took and has not handled yet: <c>Items[Next..Count)</c>. Held in place by the consumer and
/// touched by its running turn only (one turn at a time), so it needs no lock; it carries over a yield.
/// </summary>
internal struct TurnBatch<T>
{
    public Slot<T>[] Items; // the queue may swap it for its own array (see ITurnQueue.Take)
    public int Next;
    public int Count;

    public TurnBatch() => Items = [];

    /// <summary>After the batch was handled: drops the references it still holds, since the queue may reuse the array.</summary>
    public void Reset()
    {
        if (RuntimeHelpers.IsReferenceOrContainsReferences<T>() && Count != 0)
        {
            Array.Clear(Items, 0, Count);
        }

        Next = 0;
        Count = 0;
    }
}
