using System.Diagnostics;
using System.Runtime.CompilerServices;
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
/// Not thread-safe: the session's gate guards it, as it guards the rest of what the session remembers.
/// <see cref="Bytes"/> is what it holds as allocated, not as replies on the wire: both arrays at their capacity, and the
/// strings it alone keeps alive. A reply is added by a <see cref="Plan"/> made first, which says what the add allocates,
/// so that the session reserves that in its bounds before anything grows. The arrays grow by doubling; at each
/// acknowledgement (<see cref="TrimExcess"/>) they shrink when they are four times more than the memory needed lately,
/// and are let go when nothing at all was remembered since the last one. They are kept while the memory runs empty
/// between batches: a pipelining client empties it at nearly every acknowledgement, and arrays let go and made again
/// (a few hundred KiB, on the large-object heap) cost the server half as much again per message in collections.
/// </remarks>
internal sealed class RememberedReplies
{
    private const int MinEntries = 16;
    private const int MinPayloadBytes = 256;

    // The arrays are not shrunk below this: a few KiB are not worth a copy.
    private const int ShrinkFloorBytes = 4 * 1024;

    /// <summary>The bytes of one entry in the entries' array, as the runtime lays it out.</summary>
    public static readonly int EntryBytes = Unsafe.SizeOf<Entry>();

    // Empty exactly when _count is 0 (let go on the last forget).
    private Entry[] _entries = [];

    // The oldest entry's index in _entries, and how many there are.
    private int _first;
    private int _count;

    // The payloads, one after another in the order of the entries, wrapping around the end. Positions are counted from
    // the first byte written since the memory was last empty (they only grow), so a payload's place is its position
    // modulo the length. Empty exactly when _count is 0.
    private byte[] _payloads = [];
    private long _payloadStart;
    private long _payloadEnd;

    // The heap bytes of the strings the entries alone keep alive: each run of equal strings is counted once, at its oldest entry.
    private long _stringBytes;

    // The most replies, and payload bytes, remembered at once since the last TrimExcess.
    private int _peakCount;
    private long _peakPayloadBytes;

    // What the arrays are sized against at a TrimExcess: the most since the last call, or these, falling by a 32nd a
    // call, whichever is more. A pipelining client's count swings from a few to thousands between acknowledgements;
    // sized against the last interval alone, the arrays shrank after a low one and grew again by doubling after the
    // next high one, a few hundred KiB on the large-object heap each time, which cost the server half as much again per
    // message in collections.
    private long _recentCount;
    private long _recentPayloadBytes;

    /// <summary>Gets how many replies the entries' array holds without growing.</summary>
    public int Capacity => _entries.Length;

    /// <summary>Gets how many payload bytes the payloads' array holds without growing.</summary>
    public int PayloadCapacity => _payloads.Length;

    /// <summary>Gets how many replies are remembered.</summary>
    public int Count => _count;

    /// <summary>Gets the bytes held, as allocated: both arrays at their capacity, and the strings only they keep alive.</summary>
    public long Bytes => ((long)_entries.Length * EntryBytes) + _payloads.Length + _stringBytes;

    /// <summary>Gets the oldest reply's sequence number; false when none is remembered.</summary>
    public bool TryPeekOldest(out ulong sequence)
    {
        if (_count == 0)
        {
            sequence = 0;
            return false;
        }

        sequence = _entries[_first].Sequence;
        return true;
    }

    /// <summary>
    /// What adding <paramref name="reply"/> now would allocate: the arrays' growth, if they are full (or, let go, the
    /// smallest that hold it), and its strings that the newest reply does not share.
    /// </summary>
    public AddPlan Plan(Envelope reply)
    {
        var (type, source, error) = (reply.Type, reply.Source, reply.Error);
        var strings = StringBytes(error);
        if (_count > 0)
        {
            // One string for a run of replies of one type and source, not one each: fewer objects to outlive collections.
            ref var newest = ref Newest;
            type = string.Equals(type, newest.Type, StringComparison.Ordinal) ? newest.Type : type;
            source = string.Equals(source, newest.Source, StringComparison.Ordinal) ? newest.Source : source;
            strings += (ReferenceEquals(type, newest.Type) ? 0 : StringBytes(type)) + (ReferenceEquals(source, newest.Source) ? 0 : StringBytes(source));
        }
        else
        {
            strings += StringBytes(type) + StringBytes(source);
        }

        var live = _payloadEnd - _payloadStart;
        var adding = reply.Payload.Length;
        var entries = _count < _entries.Length ? _entries.Length : (int)Math.Min(Math.Max(MinEntries, 2L * _entries.Length), Array.MaxLength);
        var payloads = live + adding <= _payloads.Length ? _payloads.Length : (int)Math.Min(Math.Max(Math.Max(MinPayloadBytes, 2L * _payloads.Length), live + adding), Array.MaxLength);
        return new AddPlan(entries, payloads, strings, type, source, Growth(entries, payloads) + strings);
    }

    /// <summary>
    /// Remembers <paramref name="reply"/> as the newest, by <paramref name="plan"/> (made for it just before, with nothing
    /// added or forgotten since): <see cref="Bytes"/> grows by the plan's bytes.
    /// </summary>
    /// <exception cref="ArgumentException">Its sequence number is not above the newest's.</exception>
    public void Add(Envelope reply, in AddPlan plan)
    {
        if (_count > 0 && reply.Sequence <= Newest.Sequence)
        {
            throw new ArgumentException("Replies are remembered in increasing sequence order.", nameof(reply));
        }

        var before = Bytes;
        var payload = reply.Payload.Span;
        Debug.Assert(plan.Entries >= _entries.Length && plan.Payloads >= _payloads.Length, "The plan was made for this state.");
        if (plan.Entries != _entries.Length)
        {
            ResizeEntries(plan.Entries);
        }

        if (plan.Payloads != _payloads.Length)
        {
            ResizePayloads(plan.Payloads);
        }

        Debug.Assert(_count < _entries.Length && _payloadEnd - _payloadStart + payload.Length <= _payloads.Length, "The plan makes room for the reply.");
        Copy(payload, _payloads, _payloadEnd);
        _entries[(_first + _count) % _entries.Length] = new Entry(reply.Sequence, plan.Type, plan.Source, reply.Error, reply.Forgotten, _payloadEnd, payload.Length, plan.Strings);
        _stringBytes += plan.Strings;
        _payloadEnd += payload.Length;
        _count++;
        _peakCount = Math.Max(_peakCount, _count);
        _peakPayloadBytes = Math.Max(_peakPayloadBytes, _payloadEnd - _payloadStart);
        Debug.Assert(Bytes - before == plan.Bytes, "An add allocates what its plan said.");
    }

    /// <summary>Forgets the oldest reply (there must be one). The arrays stay, empty, until a <see cref="TrimExcess"/> lets them go.</summary>
    public void RemoveOldest()
    {
        Debug.Assert(_count > 0, "There is a reply to forget.");
        var removed = _entries[_first];
        _entries[_first] = default;
        _payloadStart += removed.Length;
        _first = (_first + 1) % _entries.Length;
        _count--;
        var released = removed.Strings;
        if (_count == 0)
        {
            // Empty: the payloads start again at the array's start.
            (_first, _payloadStart, _payloadEnd) = (0, 0, 0);
        }
        else
        {
            // The next entry shares the removed one's strings when they are one run: it now carries their count.
            ref var next = ref _entries[_first];
            var moved = (ReferenceEquals(next.Type, removed.Type) ? StringBytes(next.Type) : 0) + (ReferenceEquals(next.Source, removed.Source) ? StringBytes(next.Source) : 0);
            next.Strings += moved;
            released -= moved;
        }

        _stringBytes -= released;
        Debug.Assert(_stringBytes >= 0 && (_count > 0 || _stringBytes == 0), "Every string counted is given back.");
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
    /// Called at each acknowledgement: lets both arrays go when nothing was remembered since the last call (a session that
    /// went quiet holds nothing), and otherwise shrinks an array that is four times more than the memory needed lately
    /// (and more than a few KiB) to twice that. "Lately" is the most since the last call, or the most before it falling
    /// by a 32nd a call: a session that once held many replies and now holds few gives the room back within some tens of
    /// acknowledgements, and one whose count swings between them, as a pipelining client's does, keeps its arrays rather
    /// than copying them back and forth.
    /// </summary>
    public void TrimExcess()
    {
        if (_peakCount == 0)
        {
            Debug.Assert(_count == 0 && _stringBytes == 0, "Nothing remembered since the last call: the memory is empty.");
            (_entries, _payloads, _recentCount, _recentPayloadBytes) = ([], [], 0, 0);
            return;
        }

        _recentCount = Math.Max(_peakCount, _recentCount - (_recentCount >> 5));
        _recentPayloadBytes = Math.Max(_peakPayloadBytes, _recentPayloadBytes - (_recentPayloadBytes >> 5));
        if ((long)_entries.Length * EntryBytes > ShrinkFloorBytes && _entries.Length >= 4 * _recentCount)
        {
            ResizeEntries((int)Math.Max(MinEntries, 2 * _recentCount));
        }

        if (_payloads.Length > ShrinkFloorBytes && _payloads.Length >= 4 * _recentPayloadBytes)
        {
            ResizePayloads((int)Math.Max(MinPayloadBytes, 2 * _recentPayloadBytes));
        }

        // The next call measures from here.
        (_peakCount, _peakPayloadBytes) = (_count, _payloadEnd - _payloadStart);
    }

    // A string's bytes on the heap (64-bit: header, method table, length, UTF-16 and terminator, rounded to 8); the empty
    // string is shared by everything and counts nothing.
    private static int StringBytes(string text) => text.Length == 0 ? 0 : (22 + (2 * text.Length) + 7) & ~7;

    private long Growth(int entries, int payloads) => ((long)(entries - _entries.Length) * EntryBytes) + (payloads - _payloads.Length);

    private ref Entry Newest => ref _entries[(_first + _count - 1) % _entries.Length];

    private void ResizeEntries(int length)
    {
        Debug.Assert(length >= _count, "The entries fit.");
        var resized = new Entry[length];
        for (var i = 0; i < _count; i++)
        {
            resized[i] = _entries[(_first + i) % _entries.Length];
        }

        (_entries, _first) = (resized, 0);
    }

    private void ResizePayloads(int length)
    {
        var live = _payloadEnd - _payloadStart;
        Debug.Assert(length >= live, "The payloads fit.");
        var resized = new byte[length];
        Copy(_payloads, _payloadStart, resized.AsSpan(0, (int)live));

        // The payloads move to the start of the new array: every entry's position moves by the same amount.
        for (var i = 0; i < _count; i++)
        {
            _entries[(_first + i) % _entries.Length].Position -= _payloadStart;
        }

        (_payloads, _payloadEnd, _payloadStart) = (resized, live, 0);
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

    /// <summary>
    /// What one add allocates: the arrays' lengths after it, the heap bytes of its strings that no older reply holds, the
    /// instances of type and source it keeps, and the growth of <see cref="Bytes"/> in all.
    /// </summary>
    public readonly record struct AddPlan(int Entries, int Payloads, int Strings, string Type, string Source, long Bytes);

    /// <summary>One remembered reply: its fields, where its payload lies in the ring, and the string bytes it is counted with.</summary>
    private struct Entry(ulong sequence, string type, string source, string error, bool forgotten, long position, int length, int strings)
    {
        public readonly ulong Sequence = sequence;
        public readonly string Type = type;
        public readonly string Source = source;
        public readonly string Error = error;
        public readonly bool Forgotten = forgotten;
        public long Position = position;
        public readonly int Length = length;
        public int Strings = strings;
    }
}
