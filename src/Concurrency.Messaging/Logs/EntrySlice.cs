namespace Concurrency.Messaging.Logs;

/// <summary>
/// Where the in-memory log keeps an entry: a range of one of its segments (or of an array of the entry's own), named by
/// the segment's number. No reference, so storing one is a plain store, without the garbage collector's write barrier.
/// </summary>
internal readonly record struct EntrySlice(int Segment, int Offset, int Length);
