using System.Buffers.Binary;
using System.Diagnostics;
using System.Numerics;
using Concurrency.Messaging.Internal;
using Microsoft.Win32.SafeHandles;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The one thing a replica keeps on disk: the counter up to which it has reserved identities. Two slots in one file, each
/// a generation, the reserved counter and a CRC-32C; a write goes to the older slot and is fsynced, so a write cut short by a
/// crash leaves the other slot whole, and the file never grows (no rename, no log to rotate). The file stays open with no
/// sharing while the replica lives: a second replica on the same folder is refused by the operating system's lock.
/// </summary>
/// <remarks>
/// Concurrency: the counter makes one reservation at a time; <see cref="Write"/> also takes <c>_writer</c>, so that even
/// two writers could not both take the same generation and slot.
/// </remarks>
internal sealed class ReplicaCheckpoint : IDisposable
{
    /// <summary>The file's name inside the replica's data folder.</summary>
    public const string FileName = "replica.checkpoint";

    private const uint Magic = 0x434C5052; // "RPLC"
    private const ushort Version = 1;
    private const int SlotBytes = 32;
    private const int SlotDistance = 4096; // each slot in a sector of its own, so one torn write cannot touch both
    private const int FileBytes = SlotDistance + SlotBytes;

    private readonly SafeFileHandle _file;
    private readonly int _replica;
    private readonly Lock _writer = new();
    private long _generation; // the newest slot's generation: guarded by _writer
    private int _newest;      // the newest slot's index, 0 or 1 (the next write goes to the other): guarded by _writer

    private ReplicaCheckpoint(SafeFileHandle file, int replica, long generation, int newest, long reserved)
    {
        _file = file;
        _replica = replica;
        _generation = generation;
        _newest = newest;
        Reserved = reserved;
    }

    /// <summary>Gets the counter up to which identities are reserved durably: every counter up to it may have been handed out.</summary>
    public long Reserved { get; private set; }

    /// <summary>Opens (or creates) the checkpoint of replica <paramref name="replica"/> in <paramref name="folder"/>.</summary>
    /// <exception cref="IOException">Another process holds the folder (a replica runs on it), or the file cannot be read.</exception>
    /// <exception cref="InvalidDataException">The folder belongs to another replica id, or neither slot is whole: nothing is overwritten.</exception>
    public static ReplicaCheckpoint Open(string folder, int replica)
    {
        if (!Directory.Exists(folder))
        {
            Directory.CreateDirectory(folder);
            DurableFolder.Flush(Path.GetDirectoryName(Path.GetFullPath(folder))!); // the new folder's own name, durable
        }

        var path = Path.Combine(folder, FileName);
        SafeFileHandle file;
        try
        {
            file = File.OpenHandle(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
        }
        catch (IOException e)
        {
            throw new IOException($"The data folder '{folder}' is in use by another replica (its {FileName} is locked).", e);
        }

        try
        {
            var bytes = new byte[FileBytes];
            var read = RandomAccess.Read(file, bytes, 0);
            var slots = new[] { Parse(bytes.AsSpan(0, SlotBytes)), Parse(bytes.AsSpan(SlotDistance, SlotBytes)) };
            var whole = slots.Select((slot, index) => (slot, index)).Where(x => x.slot is not null).ToList();
            if (whole.Count > 0)
            {
                if (whole.FirstOrDefault(x => x.slot!.Value.Replica != replica) is { slot: { } other })
                {
                    throw new InvalidDataException($"The data folder '{folder}' belongs to replica {other.Replica}, not {replica}: give each replica its own folder.");
                }

                // The newest slot is written next to; the larger reservation is the one to begin past (the two agree
                // unless the file was copied or restored: then the larger is the safe one).
                var newest = whole.MaxBy(x => x.slot!.Value.Generation);
                return new ReplicaCheckpoint(file, replica, newest.slot!.Value.Generation, newest.index, whole.Max(x => x.slot!.Value.Reserved));
            }

            if (bytes.AsSpan(0, read).ContainsAnyExcept((byte)0))
            {
                throw new InvalidDataException($"'{path}' has no whole slot: it is damaged or not a replica's checkpoint. It was left as it is; restore it, or start the replica on an empty folder with an id no replica has used.");
            }

            // New (or created by a start that crashed before its first fsync, when it can have handed out nothing).
            var checkpoint = new ReplicaCheckpoint(file, replica, 0, 0, 0);
            checkpoint.Write(0);
            DurableFolder.Flush(folder); // the file's name, durable: also where an earlier start created it and crashed before this
            return checkpoint;
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>Reserves every counter up to <paramref name="reserved"/>: written and fsynced before it returns.</summary>
    /// <exception cref="IOException">The write or the fsync failed; <see cref="Reserved"/> is unchanged.</exception>
    public void Write(long reserved)
    {
        lock (_writer)
        {
            if (reserved <= Reserved && _generation > 0)
            {
                return; // already durable
            }

            WriteSlot(reserved);
        }
    }

    private void WriteSlot(long reserved)
    {
        Debug.Assert(_writer.IsHeldByCurrentThread, "One writer.");
        var generation = _generation + 1;
        var target = 1 - _newest;
        Span<byte> slot = stackalloc byte[SlotBytes];
        BinaryPrimitives.WriteUInt32LittleEndian(slot, Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(slot[4..], Version);
        BinaryPrimitives.WriteUInt16LittleEndian(slot[6..], (ushort)_replica);
        BinaryPrimitives.WriteInt64LittleEndian(slot[8..], generation);
        BinaryPrimitives.WriteInt64LittleEndian(slot[16..], reserved);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[24..], 0);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[28..], Checksum(slot[..28]));

        // The other slot than the newest: the newest stays whole meanwhile.
        RandomAccess.Write(_file, slot, target * SlotDistance);
        if (generation == 1)
        {
            // The first write also gives the file its full length, so that slot 1 reads as a slot of zeros, not as missing.
            RandomAccess.Write(_file, new byte[SlotBytes], 0);
        }

        RandomAccess.FlushToDisk(_file);
        _generation = generation;
        _newest = target;
        Reserved = reserved;
    }

    /// <summary>Closes the file, which releases the folder.</summary>
    public void Dispose() => _file.Dispose();

    private static Slot? Parse(ReadOnlySpan<byte> slot)
    {
        if (slot.Length < SlotBytes
            || BinaryPrimitives.ReadUInt32LittleEndian(slot) != Magic
            || BinaryPrimitives.ReadUInt16LittleEndian(slot[4..]) != Version
            || BinaryPrimitives.ReadUInt32LittleEndian(slot[28..]) != Checksum(slot[..28]))
        {
            return null;
        }

        var reserved = BinaryPrimitives.ReadInt64LittleEndian(slot[16..]);
        var generation = BinaryPrimitives.ReadInt64LittleEndian(slot[8..]);
        return reserved < 0 || generation < 1 ? null : new Slot(BinaryPrimitives.ReadUInt16LittleEndian(slot[6..]), generation, reserved);
    }

    private static uint Checksum(ReadOnlySpan<byte> bytes)
    {
        var crc = uint.MaxValue;
        foreach (var b in bytes)
        {
            crc = BitOperations.Crc32C(crc, b);
        }

        return ~crc;
    }

    private readonly record struct Slot(int Replica, long Generation, long Reserved);
}
