using System.Diagnostics;
using System.Globalization;

namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// Samples this process every 10 ms on a dedicated thread (a thread-pool timer would starve with the pool it watches):
/// its threads, its resident and private memory, and the contender's own thread count, keeping the peak of each. On Linux
/// it reads /proc/self/status (cheap even with 10,000 threads); elsewhere it asks <see cref="Process"/>.
/// </summary>
internal sealed class BurstSampler : IDisposable
{
    private const string Status = "/proc/self/status";

    private static readonly TimeSpan Interval = TimeSpan.FromMilliseconds(10);

    private readonly Func<int> _contenderThreads;
    private readonly ManualResetEventSlim _stop = new(false);
    private readonly Thread _thread;
    private int _peakThreads;          // written by the sampling thread, read after Stop joins it
    private long _peakResidentBytes;   // likewise
    private long _peakPrivateBytes;    // likewise
    private int _peakContenderThreads; // likewise

    /// <summary>Takes a first sample, then starts sampling.</summary>
    /// <param name="contenderThreads">The contender's threads now (workers alive, or the thread pool's thread count).</param>
    public BurstSampler(Func<int> contenderThreads)
    {
        _contenderThreads = contenderThreads;
        Sample();
        _thread = new Thread(Loop) { IsBackground = true, Name = "Burst sampler" };
        _thread.Start();
    }

    public int PeakThreads => _peakThreads;

    public long PeakResidentBytes => _peakResidentBytes;

    public long PeakPrivateBytes => _peakPrivateBytes;

    public int PeakContenderThreads => _peakContenderThreads;

    /// <summary>Stops sampling after one last sample; the peaks are final when it returns.</summary>
    public void Stop()
    {
        _stop.Set();
        _thread.Join();
        Sample();
    }

    public void Dispose()
    {
        if (_thread.IsAlive)
        {
            Stop();
        }

        _stop.Dispose();
    }

    private void Loop()
    {
        while (!_stop.Wait(Interval))
        {
            Sample();
        }
    }

    private void Sample()
    {
        var (threads, resident, priv) = File.Exists(Status) ? ReadStatus() : ReadProcess();
        _peakThreads = Math.Max(_peakThreads, threads);
        _peakResidentBytes = Math.Max(_peakResidentBytes, resident);
        _peakPrivateBytes = Math.Max(_peakPrivateBytes, priv);
        _peakContenderThreads = Math.Max(_peakContenderThreads, _contenderThreads());
    }

    /// <summary>Threads, VmRSS and RssAnon (resident memory no file backs: heaps and thread stacks), in bytes.</summary>
    private static (int Threads, long Resident, long Private) ReadStatus()
    {
        int threads = 0;
        long resident = 0, priv = 0;
        foreach (var line in File.ReadLines(Status))
        {
            if (line.StartsWith("Threads:", StringComparison.Ordinal))
            {
                threads = int.Parse(line.AsSpan("Threads:".Length).Trim(), CultureInfo.InvariantCulture);
            }
            else if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
            {
                resident = Kilobytes(line, "VmRSS:");
            }
            else if (line.StartsWith("RssAnon:", StringComparison.Ordinal))
            {
                priv = Kilobytes(line, "RssAnon:");
            }
        }

        return (threads, resident, priv);
    }

    private static long Kilobytes(string line, string key)
        => long.Parse(line.AsSpan(key.Length).Trim().TrimEnd("kB").Trim(), CultureInfo.InvariantCulture) * 1024;

    private static (int Threads, long Resident, long Private) ReadProcess()
    {
        using var process = Process.GetCurrentProcess();
        return (process.Threads.Count, process.WorkingSet64, process.PrivateMemorySize64);
    }
}
