using System.Diagnostics;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// The file log's write side: records staged into one buffer and handed to the OS at the file's end with positional
/// writes, a record larger than the buffer written on its own. Each record's checksum is taken from the log's copy of its
/// bytes, never from the caller's memory, which the caller can change during the append: what is written still checks out.
/// </summary>
/// <remarks>
/// Not thread-safe: the log's append lock guards every member but <see cref="Written"/>, which a reader may read without it.
/// </remarks>
internal sealed class LogFileWriter
{
    private readonly ILogStorage _storage;

    // Where each entry lies: this stages them; the log publishes them by its policy.
    private readonly ChunkedList<RecordLocation> _records;

    // Records not yet handed to the OS, from file offset _written on.
    private readonly byte[] _buffer;

    // Bytes used in _buffer.
    private int _buffered;

    // File offset up to which records are handed to the OS. Written under the append lock (Volatile); read without it.
    private long _written;

    public LogFileWriter(ILogStorage storage, ChunkedList<RecordLocation> records, int bufferSize, long end)
    {
        _storage = storage;
        _records = records;
        _buffer = new byte[bufferSize];
        _written = end;
        WrittenCount = records.StagedCount;
    }

    /// <summary>Gets the file offset up to which records are handed to the OS. Any thread.</summary>
    public long Written => Volatile.Read(ref _written);

    /// <summary>Gets the entries wholly handed to the OS, counted at every write, in the middle of a batch too.</summary>
    public long WrittenCount { get; private set; }

    /// <summary>
    /// For tests: runs as an entry is staged, before its bytes are taken: where a caller that changes its buffer during the
    /// append meets it. Set before the log is shared.
    /// </summary>
    public Action? OnStaging { get; set; }

    /// <summary>
    /// Puts a record in the buffer (writing the buffer out first when it has no room) or, larger than the buffer, straight
    /// into the file; stages its location and returns its index.
    /// </summary>
    public long Stage(ReadOnlySpan<byte> entry)
    {
        OnStaging?.Invoke();
        var recordSize = LogRecord.HeaderSize + entry.Length;
        if (recordSize > _buffer.Length - _buffered)
        {
            WriteBuffer();
        }

        var offset = _written + _buffered;
        if (recordSize > _buffer.Length)
        {
            WriteLarge(entry);
            var large = _records.Stage(new RecordLocation(offset, entry.Length));
            WrittenCount = large + 1;
            return large;
        }

        var payload = _buffer.AsSpan(_buffered + LogRecord.HeaderSize, entry.Length);
        entry.CopyTo(payload);
        LogRecord.WriteHeader(_buffer.AsSpan(_buffered), entry.Length, LogRecord.Checksum(payload));
        _buffered += recordSize;
        return _records.Stage(new RecordLocation(offset, entry.Length));
    }

    /// <summary>Hands the buffer to the OS: every staged record is then written.</summary>
    public void WriteBuffer()
    {
        if (_buffered == 0)
        {
            return;
        }

        _storage.Write(_buffer.AsSpan(0, _buffered), _written);
        Volatile.Write(ref _written, _written + _buffered);
        WrittenCount = _records.StagedCount;
        _buffered = 0;
    }

    /// <summary>Copies <paramref name="record"/>'s entry out of the buffer; false when it was handed to the OS already.</summary>
    public bool TryCopyBuffered(RecordLocation record, Span<byte> entry)
    {
        if (record.Offset < _written)
        {
            return false;
        }

        _buffer.AsSpan((int)(record.PayloadOffset - _written), record.Length).CopyTo(entry);
        return true;
    }

    /// <summary>Drops what the buffer holds (a faulted log withdraws it).</summary>
    public void Discard() => _buffered = 0;

    // A record larger than the buffer goes to the file on its own, its bytes a buffer at a time through the (empty) buffer,
    // each piece checksummed from the copy that is written; the header, which needs the whole checksum, goes last. A crash
    // before it leaves a record with no marker at its start: a bad tail, which open keeps and cuts.
    private void WriteLarge(ReadOnlySpan<byte> entry)
    {
        Debug.Assert(_buffered == 0, "The buffer was written out before a record that does not fit it.");
        var payloadOffset = _written + LogRecord.HeaderSize;
        var crc = LogRecord.ChecksumStart(entry.Length);
        for (var done = 0; done < entry.Length;)
        {
            var piece = _buffer.AsSpan(0, Math.Min(_buffer.Length, entry.Length - done));
            entry.Slice(done, piece.Length).CopyTo(piece);
            crc = LogRecord.ChecksumUpdate(crc, piece);
            _storage.Write(piece, payloadOffset + done);
            done += piece.Length;
        }

        Span<byte> header = stackalloc byte[LogRecord.HeaderSize];
        LogRecord.WriteHeader(header, entry.Length, ~crc);
        _storage.Write(header, _written);
        Volatile.Write(ref _written, payloadOffset + entry.Length);
    }
}
