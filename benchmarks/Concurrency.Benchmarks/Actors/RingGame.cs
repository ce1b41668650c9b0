using System.Globalization;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// One of Armstrong's ring games: <see cref="Actors"/> actors (N), each forwarding to the next, and <see cref="Tokens"/>
/// tokens or laps (M), N × M hops a run, counted where they land. The checksum is the sum of the numbers (1 to M) of the
/// tokens that completed a lap at the starter. Its name (<see cref="ToString"/>) is the game's one name: the suite's
/// parameter value and the plain program's row.
/// </summary>
public sealed record RingGame(int Actors, int Tokens, RingPart Part)
{
    /// <summary>Gets the hops one run delivers.</summary>
    public long Hops => (long)Actors * Tokens;

    /// <summary>Gets what one run must deliver: every hop, and the tokens' numbers once each.</summary>
    internal RunTotals Expected => new(Hops, (long)Tokens * (Tokens + 1) / 2);

    /// <summary>Creates the ring's actors and handshakes them.</summary>
    internal void SetUp(IActorContender contender) => contender.SetUpRing(Actors);

    /// <summary>One run of the game.</summary>
    internal RunTotals Play(IActorContender contender) => contender.RunRing(Tokens, Part == RingPart.AllAtOnce);

    /// <summary>The game's name: "ring N=1,000 M=1,000, all tokens at once".</summary>
    public override string ToString()
        => string.Create(CultureInfo.InvariantCulture, $"ring N={Actors:N0} M={Tokens:N0}, {(Part == RingPart.AllAtOnce ? "all tokens at once" : "one token")}");
}
