using BenchmarkDotNet.Jobs;
using Perfolizer.Horology;
using Perfolizer.Mathematics.OutlierDetection;

namespace Concurrency.Benchmarks.Backbone.Config;

/// <summary>
/// The measurement settings every core count's job starts from: ours by default, or one of BenchmarkDotNet's named jobs
/// (<c>--job dry</c> for a quick check) applied to every core count instead of being added beside them.
/// </summary>
public static class MeasurementJobs
{
    /// <summary>The iteration BenchmarkDotNet aims for; it picks the invocations (blocks) per iteration to fill it.</summary>
    public static readonly TimeInterval IterationTime = TimeInterval.FromMilliseconds(250);

    /// <summary>
    /// Steady-state measurement. BenchmarkDotNet chooses the invocation count so that an iteration lasts about 250 ms (the
    /// pilot aims well above the 100 ms floor, because a busy machine can slow a case after the pilot has sized its
    /// iterations); unrolling stays at 1 and the minimum invocation count at 1 because one invocation is a whole block (tens
    /// of microseconds to tens of milliseconds), where unrolling gains nothing and a minimum of 16 or 4 would only stretch
    /// the slowest cases' iterations. Four launches (processes), because thread placement and code layout differ from
    /// process to process and the report's interval resamples launches first: four give it 35 distinct draws of launches
    /// where three give 10. Per launch, 6 warm-up iterations (with the pilot, seconds of running after tiered compilation
    /// has settled) and 15 measured, 60 in all per case, for a median and its interval. Nothing is dropped as an outlier: a
    /// slow iteration on a busy machine is part of the answer, and the median is robust to it. The default run (the
    /// headline, 15 paths at 2 core counts: 120 launches of about 8 s) takes about 16 minutes on a quiet 2-core machine.
    /// </summary>
    public static Job SteadyState { get; } = Job.Default
        .WithIterationTime(IterationTime)
        .WithUnrollFactor(1)
        .WithMinInvokeCount(1)
        .WithLaunchCount(4)
        .WithWarmupCount(6)
        .WithIterationCount(15)
        .WithOutlierMode(OutlierMode.DontRemove);

    /// <summary>The names <c>--job</c> accepts.</summary>
    public static IReadOnlyList<string> Names { get; } = ["default", "dry", "short", "medium", "long"];

    public static Job? Named(string name) => name.ToLowerInvariant() switch
    {
        "default" => SteadyState,
        "dry" => Job.Dry,
        "short" => Job.ShortRun.WithOutlierMode(OutlierMode.DontRemove),
        "medium" => Job.MediumRun.WithOutlierMode(OutlierMode.DontRemove),
        "long" => Job.LongRun.WithOutlierMode(OutlierMode.DontRemove),
        _ => null,
    };
}
