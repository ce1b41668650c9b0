using System.Collections;
using System.Collections.Concurrent;

namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// Says yes to every add and keeps nothing: the state in which the collection's count and contents disagree. Put under a
/// pipe's queue by the queue-failure tests and by the crash probe (which links this file).
/// </summary>
internal sealed class LosingCollection : IProducerConsumerCollection<long>
{
    public int Count => 0;

    public bool IsSynchronized => false;

    public object SyncRoot => this;

    public bool TryAdd(long item) => true;

    public bool TryTake(out long item)
    {
        item = 0;
        return false;
    }

    public long[] ToArray() => [];

    public void CopyTo(long[] array, int index)
    {
    }

    public void CopyTo(Array array, int index)
    {
    }

    public IEnumerator<long> GetEnumerator() => Enumerable.Empty<long>().GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
