using System.Collections.Concurrent;

namespace Concurrency.Messaging.Pipes;

/// <summary>What <see cref="BlockingCollection{T}"/> lacks: an add that answers "completed" instead of throwing.</summary>
internal static class BlockingCollectionExtensions
{
    /// <summary>Adds to an unbounded collection.</summary>
    /// <returns><see langword="false"/> if adding was completed, which the collection itself decides atomically.</returns>
    public static bool TryAddUnlessCompleted<T>(this BlockingCollection<T> collection, T item)
    {
        try
        {
            return collection.TryAdd(item);
        }
        catch (InvalidOperationException) when (collection.IsAddingCompleted)
        {
            return false;
        }
    }
}
