using System.Globalization;

namespace Concurrency.Benchmarks.PlainLoop;

/// <summary>
/// One contender's plain-loop runs in one launch: the median rate with the lowest and highest, the median CPU per message,
/// the warm-up runs before them, the methods the runtime still compiled while they ran (0 when the code had settled), and
/// the cores' cache-line round trip measured around them (<see cref="CoreRoundTrip"/>; none on one core).
/// </summary>
public sealed record LoopResult(string Path, double Median, double Lowest, double Highest, double CpuPerMessage, int WarmupRuns, long CompiledDuringRuns, double? RoundTripNs = null)
{
    public string Rate => LoopSummary.RateRange(Median, Lowest, Highest);

    public string RoundTrip => RoundTripNs is { } ns ? string.Create(CultureInfo.InvariantCulture, $"{ns:0} ns") : "–";
}
