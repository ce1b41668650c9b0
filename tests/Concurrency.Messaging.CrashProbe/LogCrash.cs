using System.Buffers.Binary;
using System.Diagnostics;
using Concurrency.Messaging.Logs;

namespace Concurrency.Messaging.CrashProbe;

/// <summary>
/// The probe's "log" mode: appends entries 0..count-1 (each its index as 8 little-endian bytes, then 8 bytes of 0xA5) to a
/// file log under a policy, says so on standard output, then kills its own process between append and flush: no Close,
/// no finalizers, exactly what kill -9 does. The test then reopens the file and counts what the policy kept.
/// </summary>
internal static class LogCrash
{
    public const int BufferSize = 4096;

    public static int Run(string path, FileFlushPolicy policy, int count)
    {
        var log = AppendLog.OpenFile(path, new FileLogOptions { FlushPolicy = policy, BufferSize = BufferSize });
        Span<byte> entry = stackalloc byte[16];
        entry[8..].Fill(0xA5);
        for (var i = 0; i < count; i++)
        {
            BinaryPrimitives.WriteInt64LittleEndian(entry, i);
            log.Append(entry);
        }

        Console.Out.WriteLine($"appended {count}");
        Console.Out.Flush();
        Process.GetCurrentProcess().Kill();

        // SIGKILL lands at once; should it not, wait bounded and say so with an exit code the test refuses.
        using var never = new ManualResetEventSlim(false);
        never.Wait(TimeSpan.FromSeconds(20));
        GC.KeepAlive(log);
        return 3;
    }

    /// <summary>The probe's "open" mode: another process opening a log file; 0 when it opened, 4 and the error when refused.</summary>
    public static int Open(string path)
    {
        try
        {
            using var log = AppendLog.OpenFile(path);
            Console.Out.WriteLine($"opened with {log.Count} entries");
            return 0;
        }
        catch (IOException refused)
        {
            Console.Out.WriteLine(refused.Message);
            return 4;
        }
    }
}
