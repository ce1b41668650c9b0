using System.Buffers.Binary;
using System.Diagnostics;
using System.Numerics;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The one thing a replica keeps on disk: the counter up to which it has reserved identities. Two slots in one file, each
/// a generation, the reserved counter and a CRC-32C; a write goes to the older slot and is fsynced, so a write cut short by a
/// crash leaves the other slot whole, and the file never grows (no rename, no log to rotate). The file stays open with no
/// sharing while the replica lives: a second replica on the same folder is refused by the operating system's lock.
/// </summary>
/// <remarks>Concurrency: <see cref="Write"/> is called by one writer at a time (the counter's one reservation in flight).</remarks>
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
    private long _generation; // the newest slot's generation; the writer's only

    private ReplicaCheckpoint(SafeFileHandle file, int replica, long generation, long reserved)
    {
        _file = file;
        _replica = replica;
        _generation = generation;
        Reserved = reserved;
    }

    /// <summary>Gets the counter up to which identities are reserved durably: every counter up to it may have been handed out.</summary>
    public long Reserved { get; private set; }

    /// <summary>Opens (or creates) the checkpoint of replica <paramref name="replica"/> in <paramref name="folder"/>.</summary>
    /// <exception cref="IOException">Another process holds the folder (a replica runs on it), or the file cannot be read.</exception>
    /// <exception cref="InvalidDataException">The folder belongs to another replica id, or neither slot is whole: nothing is overwritten.</exception>
    public static ReplicaCheckpoint Open(string folder, int replica)
    {
        Directory.CreateDirectory(folder);
        var path = Path.Combine(folder, FileName);
        var created = !File.Exists(path);
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
            var newest = slots.Where(slot => slot is not null).MaxBy(slot => slot!.Value.Generation);
            if (newest is { } found)
            {
                if (found.Replica != replica)
                {
                    throw new InvalidDataException($"The data folder '{folder}' belongs to replica {found.Replica}, not {replica}: give each replica its own folder.");
                }

                return new ReplicaCheckpoint(file, replica, found.Generation, found.Reserved);
            }

            if (bytes.AsSpan(0, read).ContainsAnyExcept((byte)0))
            {
                throw new InvalidDataException($"'{path}' has no whole slot: it is damaged or not a replica's checkpoint. It was left as it is; restore it, or start the replica on an empty folder with an id no replica has used.");
            }

            // New (or created by a start that crashed before its first fsync, when it can have handed out nothing).
            var checkpoint = new ReplicaCheckpoint(file, replica, 0, 0);
            checkpoint.Write(0);
            if (created)
            {
                SyncFolder(folder);
            }

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
        Debug.Assert(reserved >= Reserved, "A reservation only grows.");
        var generation = _generation + 1;
        Span<byte> slot = stackalloc byte[SlotBytes];
        BinaryPrimitives.WriteUInt32LittleEndian(slot, Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(slot[4..], Version);
        BinaryPrimitives.WriteUInt16LittleEndian(slot[6..], (ushort)_replica);
        BinaryPrimitives.WriteInt64LittleEndian(slot[8..], generation);
        BinaryPrimitives.WriteInt64LittleEndian(slot[16..], reserved);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[24..], 0);
        BinaryPrimitives.WriteUInt32LittleEndian(slot[28..], Checksum(slot[..28]));

        // The older slot: generation 1 goes to slot 1, 2 to slot 0, and so on; the newest stays whole meanwhile.
        RandomAccess.Write(_file, slot, (generation & 1) * SlotDistance);
        if (generation == 1)
        {
            // The first write also gives the file its full length, so that slot 1 reads as a slot of zeros, not as missing.
            RandomAccess.Write(_file, new byte[SlotBytes], 0);
        }

        RandomAccess.FlushToDisk(_file);
        _generation = generation;
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

    // A new file's name is durable only once its folder is fsynced (power loss, not a killed process, can lose it otherwise).
    private static void SyncFolder(string folder)
    {
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsMacOS())
        {
            return; // Windows: NTFS journals the name; there is no folder to fsync.
        }

        var fd = NativeFolder.Open(folder, 0); // O_RDONLY
        if (fd < 0)
        {
            throw new IOException($"Could not open the data folder '{folder}' to fsync it (errno {Marshal.GetLastPInvokeError()}).");
        }

        try
        {
            if (NativeFolder.Fsync(fd) != 0)
            {
                throw new IOException($"Could not fsync the data folder '{folder}' (errno {Marshal.GetLastPInvokeError()}).");
            }
        }
        finally
        {
            _ = NativeFolder.Close(fd);
        }
    }

    private readonly record struct Slot(int Replica, long Generation, long Reserved);

    // Plain DllImport with blittable arguments (the path as NUL-terminated UTF-8 bytes): no unsafe code in the package.
    private static class NativeFolder
    {
        public static int Open(string path, int flags) => OpenBytes(System.Text.Encoding.UTF8.GetBytes(path + "\0"), flags);

        [DllImport("libc", EntryPoint = "open", SetLastError = true)]
        private static extern int OpenBytes(byte[] path, int flags);

        [DllImport("libc", EntryPoint = "fsync", SetLastError = true)]
        public static extern int Fsync(int fd);

        [DllImport("libc", EntryPoint = "close", SetLastError = true)]
        public static extern int Close(int fd);
    }
}
