using System.Diagnostics;
using System.Globalization;
using Concurrency.Messaging.Workers;

namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// One contender through one burst, in this process: <see cref="BurstLoad.Tasks"/> tasks that each block for
/// <see cref="BurstLoad.Block"/>, posted back to back by one thread, while <see cref="BurstSampler"/> keeps the peaks.
/// Ends when the last task ends, or when the budget runs out (the process is a fresh one the experiment started for this
/// contender, so what is still queued dies with it). Every task that ran must have run exactly once (count and checksum).
/// </summary>
internal static class BurstRun
{
    /// <summary>Threads left free for the rest of the machine when the uncapped pool is sized to the limits.</summary>
    private const int SpareThreads = 2_000;

    /// <summary>Runs <paramref name="contender"/> and returns its row of the burst table.</summary>
    /// <exception cref="LabVerificationException">A task ran twice, or the checksum disagrees with the tasks that ran.</exception>
    public static IReadOnlyList<string> Measure(BurstContender contender, BurstLoad load)
    {
        // Disposed only when every task ended: a run cut short by its budget leaves tasks that still touch it.
        var probe = new Probe(load.Tasks, load.Block);
        IWorkerPool? pool = null;
        string cap;
        string? note = null;
        if (contender == BurstContender.ThreadPool)
        {
            cap = "n/a";
        }
        else
        {
            var options = new WorkerPoolOptions();
            if (contender == BurstContender.Uncapped)
            {
                var headroom = ThreadHeadroom();
                var max = headroom - SpareThreads >= load.Tasks ? int.MaxValue : Math.Max(1, headroom - SpareThreads);
                options = options with { MaxWorkers = max };
                note = max == int.MaxValue ? null : string.Create(CultureInfo.InvariantCulture, $"limited to {max:N0} by the thread limits");
            }

            pool = WorkerPool.Create(options);
            cap = options.MaxWorkers == int.MaxValue ? "none" : options.MaxWorkers.ToString("N0", CultureInfo.InvariantCulture);
        }

        var threadPoolAtStart = ThreadPool.ThreadCount;
        using var sampler = new BurstSampler(pool is null ? () => ThreadPool.ThreadCount : () => pool.Metrics.WorkersAlive);
        var start = Stopwatch.GetTimestamp();
        var posted = 0;
        try
        {
            for (; posted < load.Tasks; posted++)
            {
                if (pool is null)
                {
                    ThreadPool.UnsafeQueueUserWorkItem(static task => task.Probe.Run(task.Index), (Probe: probe, Index: posted), preferLocal: false);
                }
                else
                {
                    var index = posted;
                    pool.Post(() => probe.Run(index));
                }
            }
        }
        catch (OutOfMemoryException) // the uncapped pool could not start another thread: the post was refused
        {
            note = string.Create(CultureInfo.InvariantCulture, $"a thread failed to start after {posted:N0} posts");
        }

        probe.Posted(posted);
        var finished = probe.Wait(load.Budget);
        sampler.Stop();
        var seconds = Stopwatch.GetElapsedTime(start, finished ? probe.End : Stopwatch.GetTimestamp()).TotalSeconds;
        var created = pool is null ? sampler.PeakContenderThreads - threadPoolAtStart : pool.Metrics.WorkersCreated;
        probe.Verify(contender.Label, posted, finished);
        if (finished)
        {
            probe.Dispose();
        }

        if (pool is not null)
        {
            pool.Dispose();
            if (pool.Metrics.TasksFailed != 0)
            {
                throw new LabVerificationException($"{contender.Label}: {pool.Metrics.TasksFailed} tasks threw.");
            }
        }

        var ran = probe.Ran.ToString("N0", CultureInfo.InvariantCulture) + (finished ? string.Empty : string.Create(CultureInfo.InvariantCulture, $" (budget of {load.Budget.TotalSeconds:N0} s ran out)"));
        return
        [
            contender.Label,
            note is null ? cap : $"{cap} ({note})",
            string.Create(CultureInfo.InvariantCulture, $"{load.Tasks:N0} × {load.Block.TotalMilliseconds:N0} ms"),
            ran,
            created.ToString("N0", CultureInfo.InvariantCulture),
            sampler.PeakContenderThreads.ToString("N0", CultureInfo.InvariantCulture),
            sampler.PeakThreads.ToString("N0", CultureInfo.InvariantCulture),
            Megabytes(sampler.PeakResidentBytes),
            Megabytes(sampler.PeakPrivateBytes),
            seconds.ToString("N1", CultureInfo.InvariantCulture),
        ];
    }

    /// <summary>How many more threads the machine allows: the least of threads-max, pid_max and this user's process limit, less the threads running now (Linux; elsewhere no limit is read).</summary>
    private static int ThreadHeadroom()
    {
        static long Read(string path, Func<string, long> parse) => File.Exists(path) ? parse(File.ReadAllText(path)) : long.MaxValue;

        var threadsMax = Read("/proc/sys/kernel/threads-max", text => long.Parse(text.Trim(), CultureInfo.InvariantCulture));
        var pidMax = Read("/proc/sys/kernel/pid_max", text => long.Parse(text.Trim(), CultureInfo.InvariantCulture));
        var userMax = Read("/proc/self/limits", text =>
        {
            var line = text.Split('\n').FirstOrDefault(l => l.StartsWith("Max processes", StringComparison.Ordinal));
            var soft = line?["Max processes".Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries)[0];
            return soft is null || soft == "unlimited" ? long.MaxValue : long.Parse(soft, CultureInfo.InvariantCulture);
        });
        var running = Read("/proc/loadavg", text => long.Parse(text.Split(' ')[3].Split('/')[1], CultureInfo.InvariantCulture));
        var least = Math.Min(threadsMax, Math.Min(pidMax, userMax));
        return least == long.MaxValue ? int.MaxValue : (int)Math.Clamp(least - (running == long.MaxValue ? 0 : running), 0, int.MaxValue);
    }

    private static string Megabytes(long bytes) => (bytes / (1024.0 * 1024.0)).ToString("N0", CultureInfo.InvariantCulture);

    /// <summary>The burst's tasks: each blocks, then counts its run and adds its number to a checksum; the last one notes the time.</summary>
    private sealed class Probe(int tasks, TimeSpan block) : IDisposable
    {
        private readonly int[] _runs = new int[tasks]; // Interlocked, per task
        private readonly ManualResetEventSlim _done = new(false);
        private long _checksum;                         // Interlocked: the sum of (index + 1) over the tasks that ran
        private int _ran;                               // Interlocked
        private int _remaining = tasks;                 // Interlocked: tasks posted or still to be posted that have not ended
        private long _end;                              // written by the last task before it sets _done

        public int Ran => Volatile.Read(ref _ran);

        public long End => Volatile.Read(ref _end);

        public void Run(int index)
        {
            Thread.Sleep(block); // the workload: a task that blocks, as I/O would
            Interlocked.Increment(ref _runs[index]);
            Interlocked.Add(ref _checksum, index + 1);
            Interlocked.Increment(ref _ran);
            Finish(1);
        }

        /// <summary>Tasks that were never posted (a refused post) will not end: count them off.</summary>
        public void Posted(int posted) => Finish(_runs.Length - posted);

        public bool Wait(TimeSpan budget) => _done.Wait(budget);

        /// <exception cref="LabVerificationException">A task ran twice, or the count or checksum disagrees with the tasks that ran.</exception>
        public void Verify(string contender, int posted, bool finished)
        {
            // A run cut short by its budget still has tasks running: read each slot once and check what was read.
            long sum = 0;
            var once = 0;
            for (var i = 0; i < _runs.Length; i++)
            {
                var runs = Volatile.Read(ref _runs[i]);
                if (runs > 1)
                {
                    throw new LabVerificationException($"{contender}: task {i} ran {runs} times.");
                }

                if (runs == 1)
                {
                    once++;
                    sum += i + 1;
                }
            }

            var expected = (long)posted * (posted + 1) / 2;
            if (finished && (once != posted || Ran != posted || sum != expected || Interlocked.Read(ref _checksum) != expected))
            {
                throw new LabVerificationException($"{contender}: of {posted} tasks posted, {once} ran once and {Ran} were counted; checksum {Interlocked.Read(ref _checksum)}, expected {expected}.");
            }
        }

        public void Dispose() => _done.Dispose();

        private void Finish(int count)
        {
            if (count > 0 && Interlocked.Add(ref _remaining, -count) == 0)
            {
                Volatile.Write(ref _end, Stopwatch.GetTimestamp());
                _done.Set();
            }
        }
    }
}
