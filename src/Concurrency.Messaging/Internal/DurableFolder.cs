using System.Runtime.InteropServices;
using System.Text;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// Forces a folder's entries to the disk (fsync of the folder on Linux and macOS), so that a file created or renamed in it
/// survives a power loss; a killed process cannot lose it, a power cut can. .NET has no call for it. On Windows the file
/// system journals its names: nothing to do. One source compiled into each package that keeps files (the file log here,
/// the gRPC package's replica checkpoint, linked from its project), since packages do not share internals.
/// </summary>
internal static class DurableFolder
{
    /// <summary>Forces <paramref name="directory"/>'s entries to the disk.</summary>
    /// <exception cref="IOException">The folder could not be opened or forced.</exception>
    public static void Flush(string directory)
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        // Plain DllImport with blittable arguments (the path as NUL-terminated UTF-8 bytes): no unsafe code in a package.
        var path = Encoding.UTF8.GetBytes(Path.GetFullPath(directory) + "\0");
        var descriptor = Native.open(path, 0); // O_RDONLY
        if (descriptor < 0)
        {
            throw new IOException($"The folder '{directory}' could not be opened to force its entries to disk (errno {Marshal.GetLastPInvokeError()}).");
        }

        try
        {
            if (Native.fsync(descriptor) != 0)
            {
                throw new IOException($"The folder '{directory}' could not be forced to disk (errno {Marshal.GetLastPInvokeError()}).");
            }
        }
        finally
        {
            _ = Native.close(descriptor);
        }
    }

    /// <summary>The three C library calls that <see cref="Flush"/> needs; Linux and macOS only.</summary>
    private static class Native
    {
        [DllImport("libc", SetLastError = true)]
        [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
#pragma warning disable IDE1006 // the C library's names
        public static extern int open(byte[] path, int flags);

        [DllImport("libc", SetLastError = true)]
        [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
        public static extern int fsync(int descriptor);

        [DllImport("libc", SetLastError = true)]
        [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
        public static extern int close(int descriptor);
#pragma warning restore IDE1006
    }
}
