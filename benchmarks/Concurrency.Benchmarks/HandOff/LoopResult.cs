using System.Globalization;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// One contender's plain-loop runs in one launch: the median rate with the lowest and highest, the median CPU per message,
/// the warm-up runs before them, the methods the runtime still compiled while they ran (0 when the code had settled), and
/// the cores' cache-line round trip measured around them (<see cref="CoreRoundTrip"/>; none on one core), the one core's
/// thread hand-off measured around them (<see cref="ThreadHandOff"/>; none on more than one core), and the ring's capacity
/// where the path is one of the small rings (null for a headline path at its default capacity).
/// </summary>
public sealed record LoopResult(
    string Path,
    double Median,
    double Lowest,
    double Highest,
    double CpuPerMessage,
    int WarmupRuns,
    long CompiledDuringRuns,
    double? RoundTripNs = null,
    double? HandOffNs = null,
    int? Capacity = null)
{
    /// <summary>The most a ring of <see cref="Capacity"/> can move on one core: C messages per two hand-offs; null without both.</summary>
    public double? CeilingRate => Capacity is { } capacity && HandOffNs is { } handOff ? capacity * 1e9 / (2 * handOff) : null;

    public string Rate => LoopSummary.RateRange(Median, Lowest, Highest);

    public string RoundTrip => Nanoseconds(RoundTripNs);

    public string HandOff => Nanoseconds(HandOffNs);

    private static string Nanoseconds(double? ns) => ns is { } value ? string.Create(CultureInfo.InvariantCulture, $"{value:0} ns") : "–";
}
