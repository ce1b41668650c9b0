using System.Globalization;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>A point estimate with its 95% interval.</summary>
public readonly record struct Estimate(double Point, double Low, double High)
{
    /// <summary>
    /// "faster" or "slower" only where this interval and <paramref name="reference"/>'s do not overlap; otherwise the two
    /// cannot be told apart on this evidence.
    /// </summary>
    public string VerdictAgainst(Estimate reference)
        => Low > reference.High ? "faster" : High < reference.Low ? "slower" : "within noise";

    /// <summary>A ratio with its interval, e.g. "5.62× [5.10–6.01]".</summary>
    public string FormatRatio()
        => string.Create(CultureInfo.InvariantCulture, $"{Point:0.00}× [{Low:0.00}–{High:0.00}]");

    /// <summary>A rate with its interval in the point's unit, e.g. "63.7 M [61.2–65.0]".</summary>
    public string FormatRate()
    {
        var (scale, unit) = Point switch
        {
            >= 1e9 => (1e9, " G"),
            >= 1e6 => (1e6, " M"),
            >= 1e3 => (1e3, " k"),
            _ => (1d, string.Empty),
        };
        return $"{Significant(Point / scale)}{unit} [{Significant(Low / scale)}–{Significant(High / scale)}]";
    }

    private static string Significant(double value)
        => value.ToString(Math.Abs(value) >= 100 ? "0" : Math.Abs(value) >= 10 ? "0.0" : "0.00", CultureInfo.InvariantCulture);
}
