namespace Concurrency.Benchmarks.Harness;

/// <summary>The small message the seed pushed: preallocated, so the allocator stays out of the measurement.</summary>
public sealed class Message(long id)
{
    public long Id { get; } = id;

    /// <summary>Messages 1..count; their checksum is count * (count + 1) / 2.</summary>
    public static Message[] Preallocate(int count)
    {
        var messages = new Message[count];
        for (var i = 0; i < count; i++)
        {
            messages[i] = new Message(i + 1);
        }

        return messages;
    }

    public static long ExpectedChecksum(int count) => (long)count * (count + 1) / 2;
}
