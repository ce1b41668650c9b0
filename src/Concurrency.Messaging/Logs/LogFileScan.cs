using System.Diagnostics;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// Reads a log file's records forward (format in <see cref="LogRecord"/>), for open, repair and upgrade: the records that
/// check out from the start, the first bad one, and how many valid records follow it. Reads in large positional reads from
/// one buffer, and checksums a record's bytes in that buffer, so that a bad length never makes it allocate. Used by one
/// thread, before the log is shared.
/// </summary>
internal sealed class LogFileScan
{
    private readonly ILogStorage _storage;
    private readonly long _length;
    private readonly byte[] _buffer;

    // File offset of _buffer[0].
    private long _bufferOffset;

    // Valid bytes in _buffer.
    private int _buffered;

    // Bytes of _buffer already consumed.
    private int _consumed;

    private LogFileScan(ILogStorage storage, long length, int bufferSize)
    {
        _storage = storage;
        _length = length;
        _buffer = new byte[bufferSize];
    }

    private long Position => _bufferOffset + _consumed;

    /// <summary>
    /// Scans the records from <paramref name="start"/> to the end of a file of <paramref name="length"/> bytes, adding each
    /// valid one before the first bad one to <paramref name="records"/>.
    /// </summary>
    /// <param name="storage">The file.</param>
    /// <param name="length">The file's length.</param>
    /// <param name="start">The offset of the first record.</param>
    /// <param name="records">Receives the records before the first bad one.</param>
    /// <param name="legacy">Reads version 0 records (no marker); the scan then stops at the first bad one.</param>
    public static Result Scan(ILogStorage storage, long length, long start, List<RecordLocation> records, bool legacy = false)
    {
        var scan = new LogFileScan(storage, length, FileLogOptions.DefaultBufferSize);
        scan.Seek(start);
        while (scan.Position < length)
        {
            var offset = scan.Position;
            if (!scan.TryReadRecord(legacy, out var record))
            {
                return new Result(offset, legacy ? 0 : LogFileResync.CountValidAfter(storage, length, offset, scan._buffer));
            }

            Debug.Assert(record.Offset == offset, "A record is read where the scan stands.");
            records.Add(record);
        }

        return new Result(length, 0);
    }

    /// <summary>Whether a version 0 record that checks out starts the file: a log written before the file header.</summary>
    public static bool StartsWithLegacyRecord(ILogStorage storage, long length) => HasRecordAt(storage, length, 0, legacy: true);

    /// <summary>Whether a record that checks out starts at <paramref name="offset"/>.</summary>
    public static bool HasRecordAt(ILogStorage storage, long length, long offset, bool legacy = false)
    {
        var scan = new LogFileScan(storage, length, FileLogOptions.DefaultBufferSize);
        scan.Seek(offset);
        return offset < length && scan.TryReadRecord(legacy, out _);
    }

    private void Seek(long offset)
    {
        _bufferOffset = offset;
        _buffered = 0;
        _consumed = 0;
    }

    // Reads the record where the scan stands; on success the scan stands after it. On failure where it stands is unspecified.
    private bool TryReadRecord(bool legacy, out RecordLocation record)
    {
        record = default;
        var offset = Position;
        var headerSize = legacy ? LogRecord.LegacyHeaderSize : LogRecord.HeaderSize;
        Span<byte> header = stackalloc byte[LogRecord.HeaderSize];
        header = header[..headerSize];
        if (!TryRead(header))
        {
            return false;
        }

        int length;
        uint checksum;
        if (legacy)
        {
            (length, checksum) = LogRecord.ReadLegacyHeader(header);
        }
        else if (!LogRecord.TryReadHeader(header, out length, out checksum))
        {
            return false;
        }

        if (length < 0 || length > _length - offset - headerSize)
        {
            return false;
        }

        var crc = LogRecord.ChecksumStart(length);
        for (var left = length; left > 0;)
        {
            if (_consumed == _buffered && !Refill())
            {
                return false;
            }

            var take = Math.Min(left, _buffered - _consumed);
            crc = LogRecord.ChecksumUpdate(crc, _buffer.AsSpan(_consumed, take));
            _consumed += take;
            left -= take;
        }

        if (~crc != checksum)
        {
            return false;
        }

        record = new RecordLocation(offset, length);
        return true;
    }

    private bool TryRead(Span<byte> destination)
    {
        while (!destination.IsEmpty)
        {
            if (_consumed == _buffered && !Refill())
            {
                return false;
            }

            var take = Math.Min(destination.Length, _buffered - _consumed);
            _buffer.AsSpan(_consumed, take).CopyTo(destination);
            _consumed += take;
            destination = destination[take..];
        }

        return true;
    }

    private bool Refill()
    {
        _bufferOffset += _buffered;
        _buffered = _storage.Read(_buffer, _bufferOffset);
        _consumed = 0;
        return _buffered > 0;
    }

    /// <summary>What a scan found.</summary>
    /// <param name="ValidEnd">Where the records that check out from the start end: the first bad record's offset, or the file's length.</param>
    /// <param name="RecordsAfter">Records that check out after the first bad one (0 when there is none).</param>
    internal readonly record struct Result(long ValidEnd, long RecordsAfter);
}
