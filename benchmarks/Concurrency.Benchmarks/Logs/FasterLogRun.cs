using FASTER.core;

namespace Concurrency.Benchmarks.Logs;

/// <summary>
/// The peer: Microsoft FASTER's FasterLog with a local device in the run's directory, default memory (pages go to the
/// device as it fills). Appends are <c>Enqueue</c> without a commit, which makes nothing recoverable until the next commit.
/// Read back by a scan after one commit, outside the timed run.
/// </summary>
public sealed class FasterLogRun : ILogRun
{
    private readonly IDevice _device;
    private readonly FasterLog _log;

    public FasterLogRun(string directory)
    {
        _device = Devices.CreateLogDevice(Path.Combine(directory, "faster.log"));
        _log = new FasterLog(new FasterLogSettings { LogDevice = _device });
    }

    public Task? Append(ReadOnlySpan<byte> entry)
    {
        _log.Enqueue(entry);
        return null;
    }

    public LogReadBack ReadBack(int every)
    {
        _log.Commit(spinWait: true);
        using var scan = _log.Scan(_log.BeginAddress, _log.TailAddress);
        var sample = new List<byte[]>();
        long count = 0;
        while (scan.GetNext(out var entry, out var length, out _))
        {
            if (count++ % every == 0)
            {
                sample.Add(entry.AsSpan(0, length).ToArray());
            }
        }

        return new LogReadBack(count, sample);
    }

    public void Dispose()
    {
        _log.Dispose();
        _device.Dispose();
    }
}
