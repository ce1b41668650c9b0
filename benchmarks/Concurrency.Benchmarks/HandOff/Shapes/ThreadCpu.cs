using System.Runtime.InteropServices;

namespace Concurrency.Benchmarks.HandOff.Shapes;

/// <summary>
/// The calling thread's own CPU time (Linux: <c>CLOCK_THREAD_CPUTIME_ID</c>), so the producer's cost per post can be told
/// apart from the consumer's in the process total. Unlike wall time it does not count the time the thread waited for a
/// core, which on a machine shared with other work is most of the difference between two runs.
/// </summary>
internal static partial class ThreadCpu
{
    private const int ThreadCpuClock = 3; // CLOCK_THREAD_CPUTIME_ID

    /// <summary>Gets whether this platform can say (Linux only); elsewhere <see cref="Now"/> is never called.</summary>
    public static bool IsAvailable => OperatingSystem.IsLinux();

    /// <summary>The calling thread's CPU time so far, in nanoseconds.</summary>
    /// <exception cref="InvalidOperationException">The clock could not be read.</exception>
    public static long Now()
    {
        if (ClockGetTime(ThreadCpuClock, out var time) != 0)
        {
            throw new InvalidOperationException($"clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed (errno {Marshal.GetLastPInvokeError()}).");
        }

        return (time.Seconds * 1_000_000_000) + time.Nanoseconds;
    }

    [LibraryImport("libc", EntryPoint = "clock_gettime", SetLastError = true)]
    private static partial int ClockGetTime(int clock, out TimeSpec time);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }
}
