using System.Diagnostics;
using System.Runtime.CompilerServices;
using Concurrency.Messaging.Grpc.Protocol;
using Google.Protobuf;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A session's remembered replies, oldest first, in strictly increasing sequence order, kept without an object per reply:
/// each reply's numbers in a ring of entries, its payload copied into a ring of bytes, and its type, source and error
/// strings once per run of replies that share them, in a ring of runs. Remembered replies live until the client
/// acknowledges them, long enough to outlive a young-generation collection; as envelopes, byte strings and strings (six
/// objects a reply) every collection copied them, which cost the server more per message than handling it. Here a
/// collection finds three arrays that stay put, and an entry holds no reference: remembering a reply of the run before
/// stores no reference at all, so pays no write barrier and marks no card for the next collection to scan.
/// <see cref="Find"/> (a resend after a reconnect, rare) builds the envelope again.
/// </summary>
/// <remarks>
/// Not thread-safe: the session's gate guards it, as it guards the rest of what the session remembers.
/// <see cref="Bytes"/> is what it holds as allocated, not as replies on the wire: the arrays at their capacity, and the
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
    private const int MinRuns = 4;

    // The arrays are not shrunk below this: a few KiB are not worth a copy.
    private const int ShrinkFloorBytes = 4 * 1024;

    /// <summary>The bytes of one entry in the entries' array, as the runtime lays it out.</summary>
    public static readonly int EntryBytes = Unsafe.SizeOf<Entry>();

    /// <summary>The bytes of one run in the runs' array, as the runtime lays it out.</summary>
    public static readonly int RunBytes = Unsafe.SizeOf<Run>();

    // Empty exactly when nothing was remembered since the last quiet TrimExcess.
    private Entry[] _entries = [];

    // The oldest entry's index in _entries, and how many there are.
    private int _first;
    private int _count;

    // The payloads, one after another in the order of the entries, wrapping around the end. Positions are counted from
    // the first byte written since the memory was last empty (they only grow), so a payload's place is its position
    // modulo the length.
    private byte[] _payloads = [];
    private long _payloadStart;
    private long _payloadEnd;

    // The runs of replies with equal strings, oldest first: the oldest run's index in _runs, how many there are, and the
    // oldest run's number. Runs are numbered from the first since the memory was last empty (numbers only grow), and an
    // entry holds its run's number; every run holds at least one remembered entry.
    private Run[] _runs = [];
    private int _runFirst;
    private int _runCount;
    private long _runBase;

    // The heap bytes of the strings the runs alone keep alive: a string shared by consecutive runs is counted once, at
    // the oldest of them.
    private long _stringBytes;

    // The most replies, payload bytes and runs remembered at once since the last TrimExcess.
    private int _peakCount;
    private long _peakPayloadBytes;
    private int _peakRuns;

    // What the arrays are sized against at a TrimExcess: the most since the last call, or these, falling by a 32nd a
    // call, whichever is more. A pipelining client's count swings from a few to thousands between acknowledgements;
    // sized against the last interval alone, the arrays shrank after a low one and grew again by doubling after the
    // next high one, a few hundred KiB on the large-object heap each time, which cost the server half as much again per
    // message in collections.
    private long _recentCount;
    private long _recentPayloadBytes;
    private long _recentRuns;

    /// <summary>Gets how many replies the entries' array holds without growing.</summary>
    public int Capacity => _entries.Length;

    /// <summary>Gets how many payload bytes the payloads' array holds without growing.</summary>
    public int PayloadCapacity => _payloads.Length;

    /// <summary>Gets how many runs of equal strings the runs' array holds without growing.</summary>
    public int RunCapacity => _runs.Length;

    /// <summary>Gets how many replies are remembered.</summary>
    public int Count => _count;

    /// <summary>Gets the bytes held, as allocated: the arrays at their capacity, and the strings only they keep alive.</summary>
    public long Bytes => ((long)_entries.Length * EntryBytes) + _payloads.Length + ((long)_runs.Length * RunBytes) + _stringBytes;

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
    /// smallest that hold it), and, when it starts a run, its strings that the newest run does not share.
    /// </summary>
    public AddPlan Plan(Envelope reply)
    {
        var (type, source, error) = (reply.Type, reply.Source, reply.Error);
        var strings = 0;
        var joins = false;
        if (_runCount > 0)
        {
            // One string for a run of replies of one type and source, not one each: fewer objects to outlive collections.
            ref var newest = ref NewestRun;
            type = string.Equals(type, newest.Type, StringComparison.Ordinal) ? newest.Type : type;
            source = string.Equals(source, newest.Source, StringComparison.Ordinal) ? newest.Source : source;
            error = string.Equals(error, newest.Error, StringComparison.Ordinal) ? newest.Error : error;
            joins = ReferenceEquals(type, newest.Type) && ReferenceEquals(source, newest.Source) && ReferenceEquals(error, newest.Error);
            if (!joins)
            {
                strings = (ReferenceEquals(type, newest.Type) ? 0 : StringBytes(type))
                    + (ReferenceEquals(source, newest.Source) ? 0 : StringBytes(source))
                    + (ReferenceEquals(error, newest.Error) ? 0 : StringBytes(error));
            }
        }
        else
        {
            strings = StringBytes(type) + StringBytes(source) + StringBytes(error);
        }

        var live = _payloadEnd - _payloadStart;
        var adding = reply.Payload.Length;
        var entries = _count < _entries.Length ? _entries.Length : Grown(_entries.Length, MinEntries);
        var payloads = live + adding <= _payloads.Length ? _payloads.Length : (int)Math.Min(Math.Max(Math.Max(MinPayloadBytes, 2L * _payloads.Length), live + adding), Array.MaxLength);
        var runs = joins || _runCount < _runs.Length ? _runs.Length : Grown(_runs.Length, MinRuns);
        var growth = ((long)(entries - _entries.Length) * EntryBytes) + (payloads - _payloads.Length) + ((long)(runs - _runs.Length) * RunBytes);
        return new AddPlan(entries, payloads, runs, strings, joins, type, source, error, growth + strings);
    }

    /// <summary>
    /// Remembers <paramref name="reply"/> as the newest, by <paramref name="plan"/> (made for it just before, with nothing
    /// added or forgotten since): <see cref="Bytes"/> grows by the plan's bytes.
    /// </summary>
    /// <exception cref="ArgumentException">Its sequence number is not above the newest's.</exception>
    public void Add(Envelope reply, in AddPlan plan)
    {
        if (_count > 0 && reply.Sequence <= NewestEntry.Sequence)
        {
            throw new ArgumentException("Replies are remembered in increasing sequence order.", nameof(reply));
        }

        var before = Bytes;
        var payload = reply.Payload.Span;
        Debug.Assert(plan.Entries >= _entries.Length && plan.Payloads >= _payloads.Length && plan.Runs >= _runs.Length, "The plan was made for this state.");
        if (plan.Entries != _entries.Length)
        {
            ResizeEntries(plan.Entries);
        }

        if (plan.Payloads != _payloads.Length)
        {
            ResizePayloads(plan.Payloads);
        }

        if (plan.Runs != _runs.Length)
        {
            ResizeRuns(plan.Runs);
        }

        if (!plan.Joins)
        {
            // The only place a reference is stored: once per run, not once per reply.
            _runs[(_runFirst + _runCount) % _runs.Length] = new Run(plan.Type, plan.Source, plan.Error, plan.Strings);
            _runCount++;
            _stringBytes += plan.Strings;
        }

        Debug.Assert(_count < _entries.Length && _payloadEnd - _payloadStart + payload.Length <= _payloads.Length, "The plan makes room for the reply.");
        RingArrays.Write(payload, _payloads, _payloadEnd);
        _entries[(_first + _count) % _entries.Length] = new Entry(reply.Sequence, _payloadEnd, payload.Length, _runBase + _runCount - 1, reply.Forgotten);
        _payloadEnd += payload.Length;
        _count++;
        _peakCount = Math.Max(_peakCount, _count);
        _peakPayloadBytes = Math.Max(_peakPayloadBytes, _payloadEnd - _payloadStart);
        _peakRuns = Math.Max(_peakRuns, _runCount);
        Debug.Assert(Bytes - before == plan.Bytes, "An add allocates what its plan said.");
    }

    /// <summary>Forgets the oldest reply (there must be one). The arrays stay, empty, until a <see cref="TrimExcess"/> lets them go.</summary>
    public void RemoveOldest()
    {
        Debug.Assert(_count > 0, "There is a reply to forget.");
        var removed = _entries[_first];
        _payloadStart += removed.Length;
        _first = (_first + 1) % _entries.Length;
        _count--;
        if (_count > 0 && _entries[_first].Run == removed.Run)
        {
            return; // its run goes on
        }

        // The oldest run ends with it. The next run shares the ended one's strings where they are one instance: it now
        // carries their count.
        Debug.Assert(removed.Run == _runBase, "The oldest entry belongs to the oldest run.");
        var ended = _runs[_runFirst];
        _runs[_runFirst] = default;
        _runFirst = (_runFirst + 1) % _runs.Length;
        _runCount--;
        _runBase++;
        var released = ended.Strings;
        if (_runCount > 0)
        {
            ref var next = ref _runs[_runFirst];
            var moved = (ReferenceEquals(next.Type, ended.Type) ? StringBytes(next.Type) : 0)
                + (ReferenceEquals(next.Source, ended.Source) ? StringBytes(next.Source) : 0)
                + (ReferenceEquals(next.Error, ended.Error) ? StringBytes(next.Error) : 0);
            next.Strings += moved;
            released -= moved;
        }

        _stringBytes -= released;
        if (_count == 0)
        {
            // Empty: the payloads, entries and runs start again at the arrays' starts.
            Debug.Assert(_runCount == 0 && _stringBytes == 0, "Every string counted is given back.");
            (_first, _payloadStart, _payloadEnd, _runFirst, _runBase) = (0, 0, 0, 0, 0);
        }

        Debug.Assert(_stringBytes >= 0, "No string is given back twice.");
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
                RingArrays.Read(_payloads, entry.Position, payload);
                ref var run = ref _runs[(_runFirst + (int)(entry.Run - _runBase)) % _runs.Length];
                return new Envelope
                {
                    Sequence = entry.Sequence,
                    Type = run.Type,
                    Source = run.Source,
                    Error = run.Error,
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
    /// Called at each acknowledgement: lets the arrays go when nothing was remembered since the last call (a session that
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
            Debug.Assert(_count == 0 && _runCount == 0 && _stringBytes == 0, "Nothing remembered since the last call: the memory is empty.");
            (_entries, _payloads, _runs) = ([], [], []);
            (_recentCount, _recentPayloadBytes, _recentRuns) = (0, 0, 0);
            return;
        }

        _recentCount = Math.Max(_peakCount, _recentCount - (_recentCount >> 5));
        _recentPayloadBytes = Math.Max(_peakPayloadBytes, _recentPayloadBytes - (_recentPayloadBytes >> 5));
        _recentRuns = Math.Max(_peakRuns, _recentRuns - (_recentRuns >> 5));
        if ((long)_entries.Length * EntryBytes > ShrinkFloorBytes && _entries.Length >= 4 * _recentCount)
        {
            ResizeEntries((int)Math.Max(MinEntries, 2 * _recentCount));
        }

        if (_payloads.Length > ShrinkFloorBytes && _payloads.Length >= 4 * _recentPayloadBytes)
        {
            ResizePayloads((int)Math.Max(MinPayloadBytes, 2 * _recentPayloadBytes));
        }

        if ((long)_runs.Length * RunBytes > ShrinkFloorBytes && _runs.Length >= 4 * _recentRuns)
        {
            ResizeRuns((int)Math.Max(MinRuns, 2 * _recentRuns));
        }

        // The next call measures from here.
        (_peakCount, _peakPayloadBytes, _peakRuns) = (_count, _payloadEnd - _payloadStart, _runCount);
    }

    // A string's bytes on the heap (64-bit: header, method table, length, UTF-16 and terminator, rounded to 8); the empty
    // string is shared by everything and counts nothing.
    private static int StringBytes(string text) => text.Length == 0 ? 0 : (22 + (2 * text.Length) + 7) & ~7;

    // An array's next length: doubled, at least the least.
    private static int Grown(int length, int least) => (int)Math.Min(Math.Max(least, 2L * length), Array.MaxLength);

    private ref Entry NewestEntry => ref _entries[(_first + _count - 1) % _entries.Length];

    private ref Run NewestRun => ref _runs[(_runFirst + _runCount - 1) % _runs.Length];

    private void ResizeEntries(int length) => (_entries, _first) = (RingArrays.Resized(_entries, _first, _count, length), 0);

    private void ResizeRuns(int length) => (_runs, _runFirst) = (RingArrays.Resized(_runs, _runFirst, _runCount, length), 0);

    private void ResizePayloads(int length)
    {
        var live = _payloadEnd - _payloadStart;
        Debug.Assert(length >= live, "The payloads fit.");
        var resized = new byte[length];
        RingArrays.Read(_payloads, _payloadStart, resized.AsSpan(0, (int)live));

        // The payloads move to the start of the new array: every entry's position moves by the same amount.
        for (var i = 0; i < _count; i++)
        {
            _entries[(_first + i) % _entries.Length].Position -= _payloadStart;
        }

        (_payloads, _payloadEnd, _payloadStart) = (resized, live, 0);
    }

    /// <summary>
    /// What one add allocates: the arrays' lengths after it; whether it joins the newest run (its strings equal that
    /// run's) or starts one, with the instances of its strings the run keeps and the heap bytes of those no older run
    /// holds; and the growth of <see cref="Bytes"/> in all.
    /// </summary>
    public readonly record struct AddPlan(int Entries, int Payloads, int Runs, int Strings, bool Joins, string Type, string Source, string Error, long Bytes);

    /// <summary>One remembered reply: its sequence number, where its payload lies in the ring, and the number of its run. No reference.</summary>
    private struct Entry(ulong sequence, long position, int length, long run, bool forgotten)
    {
        public readonly ulong Sequence = sequence;
        public long Position = position;
        public readonly long Run = run;
        public readonly int Length = length;
        public readonly bool Forgotten = forgotten;
    }

    /// <summary>A run of consecutive replies with equal strings: the strings, and the bytes of those it is counted with.</summary>
    private struct Run(string type, string source, string error, int strings)
    {
        public readonly string Type = type;
        public readonly string Source = source;
        public readonly string Error = error;
        public int Strings = strings;
    }
}
