using System.Globalization;

namespace Concurrency.Benchmarks.PlainLoop;

/// <summary>One contender's plain-loop runs: the median rate with the lowest and highest, and the median CPU per message.</summary>
public sealed record LoopResult(double Median, double Lowest, double Highest, double CpuPerMessage)
{
    public string Rate => string.Create(CultureInfo.InvariantCulture, $"{Millions(Median)} [{Millions(Lowest)}, {Millions(Highest)}]");

    /// <summary>This median over <paramref name="other"/>'s, bracketed by the ratios of the extremes.</summary>
    public string Times(LoopResult other)
        => string.Create(CultureInfo.InvariantCulture, $"{Median / other.Median:0.00}× [{Lowest / other.Highest:0.00}, {Highest / other.Lowest:0.00}]");

    private static string Millions(double rate) => string.Create(CultureInfo.InvariantCulture, $"{rate / 1e6:0.0} M");
}
