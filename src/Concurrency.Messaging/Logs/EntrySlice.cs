namespace Concurrency.Messaging.Logs;

/// <summary>Where the in-memory log keeps an entry: a range of one of its segments (or of an array of the entry's own).</summary>
internal readonly record struct EntrySlice(byte[] Segment, int Offset, int Length)
{
    public ReadOnlySpan<byte> Span => Segment.AsSpan(Offset, Length);
}
