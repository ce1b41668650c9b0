namespace Concurrency.Messaging.Logs;

/// <summary>The range check every log does on an index it is asked for.</summary>
internal static class LogIndex
{
    public static void ThrowIfOutOfRange(long index, long count)
    {
        if ((ulong)index >= (ulong)count)
        {
            throw new ArgumentOutOfRangeException(nameof(index), index, $"The log holds {count} entries.");
        }
    }
}
