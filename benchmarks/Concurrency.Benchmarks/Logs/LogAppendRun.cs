using System.Diagnostics;

namespace Concurrency.Benchmarks.Logs;

/// <summary>
/// One measured run, the seed's way: t threads each append n entries (n × t fixed); the wall time runs from the first
/// append of any thread to the last append of any thread (for the async log: to the last append made durable). Opening
/// the log, starting the threads and reading back are outside it. Every run reads back and checks what it appended.
/// </summary>
public static class LogAppendRun
{
    private const int SampleSize = 1_000;

    /// <summary>
    /// Unmeasured runs at 1 and 2 threads, repeated for at least <paramref name="atLeast"/>: the JIT moves a method to its
    /// optimized tier only after about 100 ms without new compilation, so a short warm-up would leave the first measured
    /// cell (1 thread, which sets w) slower than the rest, and every % of theoretical too high.
    /// </summary>
    public static void WarmUp(Contender<LogBuild> contender, int appends, TimeSpan atLeast)
    {
        var warming = Stopwatch.StartNew();
        do
        {
            Measure(contender, 1, appends);
            Measure(contender, 2, appends);
        }
        while (warming.Elapsed < atLeast);
    }

    /// <summary>Runs <paramref name="contender"/> once in a fresh directory and returns the wall time in seconds.</summary>
    public static double Measure(Contender<LogBuild> contender, int threads, int total)
    {
        var perThread = total / threads;

        // Every run starts from a collected heap, outside the clock. Without it a run's speed depended on its predecessor:
        // one that found the last run's segments not yet given back could reuse pages already mapped (our in-memory log at
        // 19-25 ns per append), one that came after a full collection mapped every page afresh (about 47 ns; 25 MiB of
        // entries is some 6,400 pages to map on this VM), and a cell's median swung between the two from launch to launch.
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        var directory = Directory.CreateTempSubdirectory("concurrency-lab-logs-");
        try
        {
            using var run = contender.Build(directory.FullName);
            var firsts = new long[threads];
            var lasts = new long[threads];
            var failures = new Exception?[threads];
            using var ready = new Barrier(threads);
            var workers = Enumerable.Range(0, threads).Select(writer => new Thread(() =>
            {
                try
                {
                    Span<byte> entry = stackalloc byte[LogEntry.Size];
                    LogEntry.Prepare(entry, writer);
                    Task? last = null;
                    ready.SignalAndWait();
                    firsts[writer] = Stopwatch.GetTimestamp();
                    for (var sequence = 0; sequence < perThread; sequence++)
                    {
                        LogEntry.Number(entry, sequence);
                        last = run.Append(entry) ?? last;
                    }

                    last?.GetAwaiter().GetResult();
                    lasts[writer] = Stopwatch.GetTimestamp();
                }
                catch (Exception e)
                {
                    failures[writer] = e;
                }
            }) { IsBackground = true, Name = $"appender {writer}" }).ToArray();
            foreach (var worker in workers)
            {
                worker.Start();
            }

            foreach (var worker in workers)
            {
                worker.Join();
            }

            if (failures.FirstOrDefault(f => f is not null) is { } failure)
            {
                throw new InvalidOperationException($"{contender.Name}: an append threw.", failure);
            }

            Verify(contender, run.ReadBack(Math.Max(1, perThread * threads / SampleSize)), threads, perThread);
            return Stopwatch.GetElapsedTime(firsts.Min(), lasts.Max()).TotalSeconds;
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }

    /// <summary>The count must be every append; each sampled entry must be one a writer appended, each writer's in its order.</summary>
    private static void Verify(Contender<LogBuild> contender, LogReadBack readBack, int threads, int perThread)
    {
        if (readBack.Count != (long)threads * perThread)
        {
            throw new LabVerificationException($"{contender.Name}: {readBack.Count} entries read back, {threads * perThread} appended.");
        }

        var lastSequence = Enumerable.Repeat(-1, threads).ToArray();
        foreach (var entry in readBack.Sample)
        {
            var (writer, sequence) = LogEntry.Check(entry, threads, perThread);
            if (sequence <= lastSequence[writer])
            {
                throw new LabVerificationException($"{contender.Name}: writer {writer}'s entries came back out of its order.");
            }

            lastSequence[writer] = sequence;
        }
    }
}
