namespace Concurrency.Messaging.Tests.Regressions;

/// <summary>Busy threads that keep every core loaded until disposed, so races that free cores hide get a chance to show.</summary>
internal sealed class CpuContention : IDisposable
{
    private readonly Thread[] _threads;
    private volatile bool _stop;

    public CpuContention(int threads)
    {
        _threads = Enumerable.Range(0, threads).Select(_ => new Thread(Burn) { IsBackground = true, Name = "contention" }).ToArray();
        foreach (var thread in _threads)
        {
            thread.Start();
        }
    }

    public void Dispose()
    {
        _stop = true;
        foreach (var thread in _threads)
        {
            thread.Join(TestTimeouts.Default);
        }
    }

    private void Burn()
    {
        var spins = 0L;
        while (!_stop)
        {
            spins++;
        }

        GC.KeepAlive(spins);
    }
}
