namespace Concurrency.Messaging.Logs;

/// <summary>Where the file log's entry lies: the file offset of its record's header, and the entry's length.</summary>
internal readonly record struct RecordLocation(long Offset, int Length)
{
    public long PayloadOffset => Offset + LogRecord.HeaderSize;

    public long End => PayloadOffset + Length;
}
