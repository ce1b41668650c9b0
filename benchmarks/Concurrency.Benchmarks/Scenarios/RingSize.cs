using System.Globalization;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>A ring of <see cref="Actors"/> actors (N) with <see cref="Messages"/> tokens or laps (M): N × M hops a run.</summary>
public sealed record RingSize(int Actors, int Messages)
{
    public long Hops => (long)Actors * Messages;

    /// <summary>The name the case shows, "NxM".</summary>
    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Actors}x{Messages}");
}
