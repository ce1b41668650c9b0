namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Arrays used as rings by <see cref="RememberedReplies"/>: copies into and out of a ring of bytes at an absolute position
/// (which only grows; its place is the position modulo the length), wrapping around the end, and a ring's items moved to
/// the start of a new array. Not thread-safe; the caller's lock guards the arrays.
/// </summary>
internal static class RingArrays
{
    /// <summary>Writes <paramref name="source"/> into <paramref name="ring"/> at the absolute position, wrapping around its end.</summary>
    public static void Write(ReadOnlySpan<byte> source, byte[] ring, long position)
    {
        if (source.IsEmpty)
        {
            return;
        }

        var at = (int)(position % ring.Length);
        var first = Math.Min(source.Length, ring.Length - at);
        source[..first].CopyTo(ring.AsSpan(at));
        source[first..].CopyTo(ring);
    }

    /// <summary>Reads <paramref name="destination"/>'s length out of <paramref name="ring"/> from the absolute position, wrapping around its end.</summary>
    public static void Read(byte[] ring, long position, Span<byte> destination)
    {
        if (destination.IsEmpty)
        {
            return;
        }

        var at = (int)(position % ring.Length);
        var first = Math.Min(destination.Length, ring.Length - at);
        ring.AsSpan(at, first).CopyTo(destination);
        ring.AsSpan(0, destination.Length - first).CopyTo(destination[first..]);
    }

    /// <summary>A new array of <paramref name="length"/> holding the ring's <paramref name="count"/> items from index <paramref name="first"/> on, oldest at index 0.</summary>
    public static T[] Resized<T>(T[] ring, int first, int count, int length)
    {
        System.Diagnostics.Debug.Assert(length >= count, "The items fit.");
        var resized = new T[length];
        for (var i = 0; i < count; i++)
        {
            resized[i] = ring[(first + i) % ring.Length];
        }

        return resized;
    }
}
