using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// The messages a consumer took and has not handled yet: <c>Items[Next..Count)</c>. Held in place by the consumer and
/// touched by its running turn only (one turn at a time), so it needs no lock; it carries over a yield.
/// </summary>
internal struct TurnBatch<T>
{
    public Slot<T>[] Items; // the queue may swap it for its own array (see ITurnQueue.Take)
    public int First;       // where the last take's messages start in Items
    public int Next;
    public int Count;       // where they end (the take writes how many, the runner makes it the end)

    public TurnBatch() => Items = [];

    /// <summary>
    /// After the batch was handled: drops the references it still holds, since the queue may reuse the array, unless
    /// <paramref name="clear"/> is false (the queue handed out its own storage in place, see <see cref="ITurnQueue{T}.HandsOutInPlace"/>).
    /// </summary>
    public void Reset(bool clear)
    {
        if (clear && RuntimeHelpers.IsReferenceOrContainsReferences<T>() && Count > First)
        {
            Array.Clear(Items, First, Count - First);
        }

        First = 0;
        Next = 0;
        Count = 0;
    }
}
