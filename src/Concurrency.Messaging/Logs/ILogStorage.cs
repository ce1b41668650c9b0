using Concurrency.Messaging.Internal;
using Microsoft.Win32.SafeHandles;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// What the file log asks of its file: positional reads and writes, the length, a cut and an fsync. A seam, so that tests can
/// count the fsyncs each policy makes and fail a write, a flush or a cut as a broken disk would; <see cref="FileLogStorage"/>
/// is the real file. Calls come from the log under its locks (writes, cuts and flushes) or from any reader (reads).
/// </summary>
internal interface ILogStorage : IDisposable
{
    long Length { get; }

    /// <summary>Reads up to <paramref name="destination"/>'s length at <paramref name="offset"/>; 0 at the end of the file.</summary>
    int Read(Span<byte> destination, long offset);

    /// <summary>Writes all of <paramref name="source"/> at <paramref name="offset"/>, or throws (some of it may be written).</summary>
    void Write(ReadOnlySpan<byte> source, long offset);

    void SetLength(long length);

    /// <summary>Forces what was written to the disk (fsync).</summary>
    void Flush();

    /// <summary>Forces the file's entry in its folder to the disk, so that a file just created survives a power loss.</summary>
    void FlushFolder();

    /// <summary>Fills <paramref name="destination"/> from <paramref name="offset"/>, or throws if the file ends first.</summary>
    /// <exception cref="IOException">The file ended before a record it holds (<paramref name="path"/> names it).</exception>
    void ReadExactly(Span<byte> destination, long offset, string path)
    {
        while (!destination.IsEmpty)
        {
            var read = Read(destination, offset);
            if (read == 0)
            {
                throw new IOException($"The log file '{path}' ended before a record it holds.");
            }

            destination = destination[read..];
            offset += read;
        }
    }
}

/// <summary>
/// The log's file, opened for reading and writing with an exclusive lock: a second log on the same file, in this process or
/// another, is refused (on Linux and macOS an advisory <c>flock</c>, which every log takes; on Windows a sharing mode).
/// </summary>
internal sealed class FileLogStorage : ILogStorage
{
    private readonly SafeFileHandle _file;
    private readonly string _path;

    private FileLogStorage(SafeFileHandle file, string path)
    {
        _file = file;
        _path = path;
    }

    public long Length => RandomAccess.GetLength(_file);

    /// <summary>Opens the file, locked as the type says.</summary>
    /// <param name="path">The file.</param>
    /// <param name="allowRename">Whether another file may be renamed over this one while it is open (the upgrade's last
    /// step). Only Windows needs it said (a sharing mode); on Linux and macOS the rename never asks, and the lock stays
    /// exclusive.</param>
    public static FileLogStorage Open(string path, bool allowRename = false)
    {
        var share = allowRename && OperatingSystem.IsWindows() ? FileShare.Delete : FileShare.None;
        try
        {
            return new FileLogStorage(File.OpenHandle(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, share), path);
        }
        catch (IOException error) when (IsLockedByAnother(error))
        {
            throw new IOException(
                $"The log file '{path}' is open in another log, in this process or another; one log at a time may have it. Close that log first.",
                error);
        }
    }

    public int Read(Span<byte> destination, long offset) => RandomAccess.Read(_file, destination, offset);

    public void Write(ReadOnlySpan<byte> source, long offset) => RandomAccess.Write(_file, source, offset);

    public void SetLength(long length) => RandomAccess.SetLength(_file, length);

    public void Flush() => RandomAccess.FlushToDisk(_file);

    public void FlushFolder() => DurableFolder.Flush(Path.GetDirectoryName(Path.GetFullPath(_path))!);

    public void Dispose() => _file.Dispose();

    // The lock's refusal: EWOULDBLOCK from flock on Unix (11 on Linux, 35 on macOS), a sharing or lock violation on Windows.
    private static bool IsLockedByAnother(IOException error)
        => OperatingSystem.IsWindows() ? (error.HResult & 0xFFFF) is 32 or 33 : error.HResult == (OperatingSystem.IsLinux() ? 11 : 35);
}
