using System.Diagnostics.Metrics;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// The one <see cref="Meter"/> of the library, named <see cref="Name"/>: every instrument of this package is made on it,
/// and the gRPC package makes its own under the same name (a listener selects instruments by meter name, so a user enables
/// the whole library with one name). The instruments are listed in docs/metrics.md.
/// </summary>
/// <remarks>
/// Nothing costs anything on a hot path while nobody listens: a counter is added to only when its <c>Enabled</c> is true,
/// and the gauges are observable, read from counters that exist anyway, only when a listener collects.
/// </remarks>
internal static class LibraryMeter
{
    /// <summary>The meter's name; the gRPC package's meter carries the same.</summary>
    public const string Name = "Concurrency.Messaging";

    /// <summary>Gets the meter. It lives as long as the process: instruments are static, made once per kind.</summary>
    public static Meter Meter { get; } = new(Name, typeof(LibraryMeter).Assembly.GetName().Version?.ToString());

    /// <summary>Adds <paramref name="count"/> to <paramref name="counter"/> if a listener is enabled on it; a field read otherwise.</summary>
    public static void Count(Counter<long> counter, long count = 1)
    {
        if (counter.Enabled)
        {
            counter.Add(count);
        }
    }
}
