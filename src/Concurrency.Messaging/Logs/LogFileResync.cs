using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// After a bad record, finds the records that check out behind it by their markers, in one forward pass over the rest of
/// the file, however many marker bytes entries hold: every candidate's checksum comes from the running checksum at its two
/// ends (<see cref="LogRecord.ChecksumZeros"/>), never from reading its bytes again. Then tells records after the bad one
/// from records inside it (an entry can hold records of its own, as a log that stores another log's bytes does): with its
/// marker intact, the bad record's length is a claim, and a record that ends within the claim lies inside it.
/// </summary>
internal static class LogFileResync
{
    private const int MarkerLength = sizeof(uint);

    /// <summary>Counts the records that check out after the bad record at <paramref name="bad"/>.</summary>
    /// <param name="storage">The file.</param>
    /// <param name="length">The file's length.</param>
    /// <param name="bad">The bad record's offset.</param>
    /// <param name="buffer">A buffer for the pass's reads.</param>
    public static long CountValidAfter(ILogStorage storage, long length, long bad, byte[] buffer)
    {
        var claimedEnd = ClaimedEnd(storage, length, bad);
        var kept = new List<Candidate>();
        var covered = bad + 1;
        foreach (var candidate in FindCandidates(storage, length, bad + 1, buffer))
        {
            // A record inside one kept already is that record's bytes, not a record of the log.
            if (candidate.Valid && candidate.Offset >= covered)
            {
                kept.Add(candidate);
                covered = candidate.End;
            }
        }

        if (claimedEnd <= length)
        {
            return kept.Count(record => record.End > claimedEnd);
        }

        // The claim runs past the file's end: a torn write, or a flipped bit in the length. The log's own records run on to
        // the file's end; the records of a torn entry stop at the tear, short of it. So only a run that reaches the end counts.
        if (kept.Count == 0 || kept[^1].End != length)
        {
            return 0;
        }

        var run = 1;
        while (run < kept.Count && kept[^(run + 1)].End == kept[^run].Offset)
        {
            run++;
        }

        return run;
    }

    // Where the bad record says it ends, when its marker stands (its length is then a claim worth weighing); otherwise its
    // own offset, so that every record after it counts.
    private static long ClaimedEnd(ILogStorage storage, long length, long bad)
    {
        Span<byte> header = stackalloc byte[LogRecord.HeaderSize];
        if (length - bad < header.Length || storage.Read(header, bad) < header.Length
            || !LogRecord.TryReadHeader(header, out var claimed, out _) || claimed < 0)
        {
            return bad;
        }

        return bad + LogRecord.HeaderSize + claimed;
    }

    // Every marker from `from` on whose record fits in the file, in offset order, each checked in the same pass.
    private static List<Candidate> FindCandidates(ILogStorage storage, long length, long from, byte[] buffer)
    {
        Span<byte> marker = stackalloc byte[MarkerLength];
        BinaryPrimitives.WriteUInt32LittleEndian(marker, LogRecord.RecordMarker);
        Span<byte> seam = stackalloc byte[2 * (MarkerLength - 1)];
        var carried = 0;
        var candidates = new List<Candidate>();

        // Offsets where the running checksum is wanted: 2 × offset for a candidate's first byte, 2 × offset + 1 for its end,
        // so that an empty record's start comes before its end.
        var events = new PriorityQueue<int, long>();
        uint running = 0; // the running checksum of the bytes from `from` to `position`, started from zero
        var position = from;
        while (position < length)
        {
            var read = storage.Read(buffer, position);
            if (read == 0)
            {
                break;
            }

            var chunk = buffer.AsSpan(0, read);
            if (carried > 0)
            {
                // A marker that starts in the last chunk and ends in this one.
                var take = Math.Min(MarkerLength - 1, read);
                chunk[..take].CopyTo(seam[carried..]);
                var at = seam[..(carried + take)].IndexOf(marker);
                if (at >= 0 && at < carried)
                {
                    Add(position - carried + at);
                }
            }

            for (var at = 0; chunk[at..].IndexOf(marker) is var next and >= 0; at += next + 1)
            {
                Add(position + at + next);
            }

            var done = 0;
            while (events.TryPeek(out var index, out var key) && key / 2 <= position + read)
            {
                var upTo = (int)((key / 2) - position);
                running = LogRecord.ChecksumUpdate(running, chunk[done..upTo]);
                done = upTo;
                events.Dequeue();
                ref var candidate = ref CollectionsMarshal.AsSpan(candidates)[index];
                if (key % 2 == 0)
                {
                    candidate.StartChecksum = running;
                }
                else
                {
                    // The record's checksum over bytes [start, end) is the running one at end less the running one at
                    // start carried over its bytes, with the record's own start folded in the same way.
                    var start = LogRecord.ChecksumStart(candidate.Length) ^ candidate.StartChecksum;
                    candidate.Valid = ~(LogRecord.ChecksumZeros(start, candidate.Length) ^ running) == candidate.Checksum;
                }
            }

            running = LogRecord.ChecksumUpdate(running, chunk[done..]);
            carried = Math.Min(MarkerLength - 1, read);
            chunk[^carried..].CopyTo(seam);
            position += read;
        }

        return candidates;

        void Add(long offset)
        {
            Span<byte> header = stackalloc byte[LogRecord.HeaderSize];
            if (length - offset < header.Length)
            {
                return;
            }

            if (storage.Read(header, offset) < header.Length)
            {
                return;
            }

            LogRecord.TryReadHeader(header, out var recordLength, out var checksum);
            if (recordLength < 0 || recordLength > length - offset - LogRecord.HeaderSize)
            {
                return;
            }

            var start = offset + LogRecord.HeaderSize;
            events.Enqueue(candidates.Count, 2 * start);
            events.Enqueue(candidates.Count, (2 * (start + recordLength)) + 1);
            candidates.Add(new Candidate { Offset = offset, Length = recordLength, Checksum = checksum });
        }
    }

    private struct Candidate
    {
        public long Offset;
        public int Length;
        public uint Checksum;
        public uint StartChecksum;
        public bool Valid;

        public readonly long End => Offset + LogRecord.HeaderSize + Length;
    }
}
