using System.Globalization;

namespace Concurrency.Benchmarks.PlainLoop;

/// <summary>
/// One contender's plain-loop runs in one launch: the median rate with the lowest and highest, the median CPU per message,
/// the warm-up runs before them, and the methods the runtime still compiled while they ran (0 when the code had settled).
/// </summary>
public sealed record LoopResult(string Path, double Median, double Lowest, double Highest, double CpuPerMessage, int WarmupRuns, long CompiledDuringRuns)
{
    public string Rate => string.Create(CultureInfo.InvariantCulture, $"{LoopSummary.Millions(Median)} [{LoopSummary.Millions(Lowest)}, {LoopSummary.Millions(Highest)}]");
}
