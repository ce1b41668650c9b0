using System.Diagnostics;
using Concurrency.Messaging.Grpc.Protocol;
using Google.Protobuf;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A session's remembered replies, oldest first, in strictly increasing sequence order, kept without an object per reply:
/// each reply's fields in a ring of entries, its payload copied into a ring of bytes, and its type and source strings
/// shared with the reply before it when they are equal. Remembered replies live until the client acknowledges them,
/// long enough to outlive a young-generation collection; as envelopes, byte strings and strings (six objects a reply)
/// every collection copied them, which cost the server more per message than handling it. Here a collection finds two
/// arrays that stay put. <see cref="Find"/> (a resend after a reconnect, rare) builds the envelope again.
/// </summary>
/// <remarks>
/// Not thread-safe: the session's gate guards it, as it guards the rest of what the session remembers. The arrays grow
/// by doubling, so they hold at most twice what is remembered (which the session bounds), and are given back when the
/// last reply is forgotten if they are much larger than what the session needed lately (<see cref="TrimExcess"/>).
/// </remarks>
internal sealed class RememberedReplies
{
    // Arrays up to these sizes are kept when the memory empties, whatever the session needed (64 KiB and about 56 KiB).
    private const int KeptEntries = 1024;
    private const int KeptPayloadBytes = 64 * 1024;

    private Entry[] _entries = [];

    // The oldest entry's index in _entries, and how many there are.
    private int _first;
    private int _count;

    // The payloads, one after another in the order of the entries, wrapping around the end. Positions are counted from
    // the first byte ever written (they only grow), so a payload's place is its position modulo the length.
    private byte[] _payloads = [];
    private long _payloadStart;
    private long _payloadEnd;

    // The most replies, and payload bytes, remembered at once since the memory was last empty (see TrimExcess).
    private int _peakCount;
    private long _peakPayloadBytes;

    /// <summary>Gets how many replies the entries' array holds without growing (for tests).</summary>
    public int Capacity => _entries.Length;

    /// <summary>Gets how many replies are remembered.</summary>
    public int Count => _count;

    /// <summary>Gets the oldest reply's sequence number and the bytes it was remembered at; false when none is.</summary>
    public bool TryPeekOldest(out ulong sequence, out int bytes)
    {
        if (_count == 0)
        {
            (sequence, bytes) = (0, 0);
            return false;
        }

        ref var oldest = ref _entries[_first];
        (sequence, bytes) = (oldest.Sequence, oldest.Bytes);
        return true;
    }

    /// <summary>Remembers <paramref name="reply"/> as the newest, at <paramref name="bytes"/> (what the session counts it at).</summary>
    /// <exception cref="ArgumentException">Its sequence number is not above the newest's.</exception>
    public void Add(Envelope reply, int bytes)
    {
        if (_count > 0 && reply.Sequence <= Newest.Sequence)
        {
            throw new ArgumentException("Replies are remembered in increasing sequence order.", nameof(reply));
        }

        var payload = reply.Payload.Span;
        if (_count == _entries.Length)
        {
            GrowEntries();
        }

        if (_payloadEnd - _payloadStart + payload.Length > _payloads.Length)
        {
            GrowPayloads(payload.Length);
        }

        Copy(payload, _payloads, _payloadEnd);
        var (type, source) = (reply.Type, reply.Source);
        if (_count > 0)
        {
            // One string for a run of replies of one type and source, not one each: fewer objects to outlive collections.
            ref var newest = ref Newest;
            type = string.Equals(type, newest.Type, StringComparison.Ordinal) ? newest.Type : type;
            source = string.Equals(source, newest.Source, StringComparison.Ordinal) ? newest.Source : source;
        }

        _entries[(_first + _count) % _entries.Length] = new Entry(reply.Sequence, type, source, reply.Error, reply.Forgotten, _payloadEnd, payload.Length, bytes);
        _payloadEnd += payload.Length;
        _count++;
        _peakCount = Math.Max(_peakCount, _count);
        _peakPayloadBytes = Math.Max(_peakPayloadBytes, _payloadEnd - _payloadStart);
    }

    /// <summary>Forgets the oldest reply (there must be one); returns the bytes it was remembered at.</summary>
    public int RemoveOldest()
    {
        Debug.Assert(_count > 0, "There is a reply to forget.");
        ref var oldest = ref _entries[_first];
        var bytes = oldest.Bytes;
        _payloadStart += oldest.Length;
        oldest = default;
        _first = (_first + 1) % _entries.Length;
        _count--;
        if (_count == 0)
        {
            (_first, _payloadStart, _payloadEnd) = (0, 0, 0);
        }

        return bytes;
    }

    /// <summary>The remembered reply with <paramref name="sequence"/>, as a new envelope; null when it is not remembered.</summary>
    public Envelope? Find(ulong sequence)
    {
        var (low, high) = (0, _count - 1);
        while (low <= high)
        {
            var middle = low + ((high - low) / 2);
            ref var entry = ref _entries[(_first + middle) % _entries.Length];
            if (entry.Sequence == sequence)
            {
                var payload = new byte[entry.Length];
                Copy(_payloads, entry.Position, payload);
                return new Envelope
                {
                    Sequence = entry.Sequence,
                    Type = entry.Type,
                    Source = entry.Source,
                    Error = entry.Error,
                    Forgotten = entry.Forgotten,
                    Payload = UnsafeByteOperations.UnsafeWrap(payload),
                };
            }

            if (entry.Sequence < sequence)
            {
                low = middle + 1;
            }
            else
            {
                high = middle - 1;
            }
        }

        return null;
    }

    /// <summary>
    /// When nothing is remembered: gives the arrays back if they are more than four times what the session needed since it
    /// was last empty (and more than a small floor). A client that acknowledges every batch empties the memory once a
    /// batch; dropping the arrays each time made every batch grow them again, allocation by allocation. A session that
    /// once held many replies and now holds few gives their room back the next time it is empty.
    /// </summary>
    public void TrimExcess()
    {
        if (_count != 0)
        {
            return;
        }

        if ((_entries.Length > KeptEntries && _entries.Length > 4 * _peakCount) || (_payloads.Length > KeptPayloadBytes && _payloads.Length > 4 * _peakPayloadBytes))
        {
            (_entries, _payloads) = ([], []);
        }

        (_peakCount, _peakPayloadBytes) = (0, 0);
    }

    private ref Entry Newest => ref _entries[(_first + _count - 1) % _entries.Length];

    private void GrowEntries()
    {
        var grown = new Entry[Math.Max(16, _entries.Length * 2)];
        for (var i = 0; i < _count; i++)
        {
            grown[i] = _entries[(_first + i) % _entries.Length];
        }

        (_entries, _first) = (grown, 0);
    }

    private void GrowPayloads(int adding)
    {
        var live = _payloadEnd - _payloadStart;
        var length = Math.Max(256L, _payloads.Length);
        while (length < live + adding)
        {
            length *= 2;
        }

        var grown = new byte[checked((int)Math.Min(length, Array.MaxLength))];
        Copy(_payloads, _payloadStart, grown.AsSpan(0, (int)live));

        // The payloads move to the start of the new array: every entry's position moves by the same amount.
        for (var i = 0; i < _count; i++)
        {
            _entries[(_first + i) % _entries.Length].Position -= _payloadStart;
        }

        (_payloads, _payloadEnd, _payloadStart) = (grown, live, 0);
    }

    // Writes source into the ring at the absolute position, wrapping around its end.
    private static void Copy(ReadOnlySpan<byte> source, byte[] ring, long position)
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

    // Reads destination's length out of the ring from the absolute position, wrapping around its end.
    private static void Copy(byte[] ring, long position, Span<byte> destination)
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

    /// <summary>One remembered reply: its fields, where its payload lies in the ring, and the bytes the session counts it at.</summary>
    private struct Entry(ulong sequence, string type, string source, string error, bool forgotten, long position, int length, int bytes)
    {
        public readonly ulong Sequence = sequence;
        public readonly string Type = type;
        public readonly string Source = source;
        public readonly string Error = error;
        public readonly bool Forgotten = forgotten;
        public long Position = position;
        public readonly int Length = length;
        public readonly int Bytes = bytes;
    }
}
