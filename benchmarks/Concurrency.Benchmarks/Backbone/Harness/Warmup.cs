using System.Diagnostics;
using System.Runtime;

namespace Concurrency.Benchmarks.Backbone.Harness;

/// <summary>
/// How long a plain program runs its game before it measures: until the runtime has settled on its code, that is at least
/// <paramref name="MinRuns"/> runs and <paramref name="Least"/> have passed and the last run compiled no method (tiered
/// compilation has replaced the hot path's first, unoptimized code), or <paramref name="Most"/> has passed. On one core
/// that took 1–2 s of runs here, and until it happened a ring's post cost up to four times as much.
/// </summary>
public sealed record Warmup(TimeSpan Least, TimeSpan Most, int MinRuns = 2)
{
    /// <summary>Runs <paramref name="run"/> until the warm-up is over.</summary>
    /// <returns>The number of warm-up runs.</returns>
    public int Run(Action run)
    {
        ArgumentNullException.ThrowIfNull(run);
        var watch = Stopwatch.StartNew();
        for (var runs = 1; ; runs++)
        {
            var compiledBefore = JitInfo.GetCompiledMethodCount();
            run();
            var settled = JitInfo.GetCompiledMethodCount() == compiledBefore;
            if ((runs >= MinRuns && watch.Elapsed >= Least && settled) || watch.Elapsed >= Most)
            {
                return runs;
            }
        }
    }
}
