using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;

namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// Pins this process to its first N allowed cores. On Linux an affinity mask belongs to a thread, so every thread alive
/// (listed in /proc/self/task) gets it, and threads started later inherit it from the thread that starts them. The parent
/// also sets DOTNET_PROCESSOR_COUNT, so the runtime sizes its thread pool and spin waits for N cores.
/// </summary>
internal static partial class CorePinning
{
    public static void PinTo(int cores)
    {
        var mask = cores >= 64 ? ulong.MaxValue : (1UL << cores) - 1;
        if (OperatingSystem.IsLinux())
        {
            foreach (var task in Directory.EnumerateDirectories("/proc/self/task"))
            {
                var tid = int.Parse(Path.GetFileName(task), CultureInfo.InvariantCulture);
                if (SchedSetAffinity(tid, sizeof(ulong), ref mask) != 0)
                {
                    var error = Marshal.GetLastPInvokeError();
                    if (error != 3)
                    {
                        // ESRCH (3): the thread ended since the listing; anything else means the pin did not hold.
                        throw new InvalidOperationException($"Could not pin thread {tid} to {cores} cores (errno {error}).");
                    }
                }
            }
        }
        else if (OperatingSystem.IsWindows())
        {
            using var process = Process.GetCurrentProcess();
            process.ProcessorAffinity = (nint)mask;
        }
        else
        {
            throw new PlatformNotSupportedException("The lab pins its processes to core counts on Linux and Windows only.");
        }
    }

    [LibraryImport("libc", EntryPoint = "sched_setaffinity", SetLastError = true)]
    private static partial int SchedSetAffinity(int pid, nint cpuSetSize, ref ulong mask);
}
