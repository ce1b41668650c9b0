using System.Buffers.Binary;

namespace Concurrency.Benchmarks.Logs;

/// <summary>
/// The baseline on disk: a buffered FileStream (64 KiB) under a lock, each entry length-prefixed, no fsync. Read back by
/// scanning the file after closing it.
/// </summary>
public sealed class LockedFileStreamRun : ILogRun
{
    private readonly string _path;

    // Guarded by _lock.
    private readonly FileStream _stream;

    private readonly Lock _lock = new();

    public LockedFileStreamRun(string directory)
    {
        _path = Path.Combine(directory, "baseline.log");
        _stream = new FileStream(_path, FileMode.CreateNew, FileAccess.Write, FileShare.Read, 64 * 1024);
    }

    public Task? Append(ReadOnlySpan<byte> entry)
    {
        Span<byte> length = stackalloc byte[sizeof(int)];
        BinaryPrimitives.WriteInt32LittleEndian(length, entry.Length);
        lock (_lock)
        {
            _stream.Write(length);
            _stream.Write(entry);
        }

        return null;
    }

    public LogReadBack ReadBack(int every)
    {
        lock (_lock)
        {
            _stream.Flush();
        }

        using var reader = new BinaryReader(File.OpenRead(_path));
        var sample = new List<byte[]>();
        long count = 0;
        while (reader.BaseStream.Position < reader.BaseStream.Length)
        {
            var entry = reader.ReadBytes(reader.ReadInt32());
            if (count++ % every == 0)
            {
                sample.Add(entry);
            }
        }

        return new LogReadBack(count, sample);
    }

    public void Dispose() => _stream.Dispose();
}
