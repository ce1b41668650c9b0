using Microsoft.Win32.SafeHandles;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// Reads a log file forward from its start in large positional reads, for the scan on open; the handle stays the log's.
/// Used by one thread, before the log is shared.
/// </summary>
internal sealed class LogFileReader(SafeFileHandle file, int bufferSize)
{
    private readonly byte[] _buffer = new byte[bufferSize];

    // File offset of _buffer[0].
    private long _bufferOffset;

    // Valid bytes in _buffer.
    private int _buffered;

    // Bytes of _buffer already handed out.
    private int _consumed;

    /// <summary>Fills <paramref name="destination"/> with the next bytes; false when the file ends first.</summary>
    public bool TryRead(Span<byte> destination)
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
        _buffered = RandomAccess.Read(file, _buffer, _bufferOffset);
        _consumed = 0;
        return _buffered > 0;
    }
}
