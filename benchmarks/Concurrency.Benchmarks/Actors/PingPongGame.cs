using System.Globalization;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// The actor ping-pong game: one pinger–ponger pair per core, each pair keeping <see cref="InFlight"/> pings in flight (1:
/// pure latency, one message at a time; 100: a full window, throughput). Each round trip is two messages delivered. Its
/// name (<see cref="ToString"/>) is the game's one name: the suite's parameter value and the plain program's row.
/// </summary>
public sealed record PingPongGame(int InFlight)
{
    /// <summary>Gets the messages one run of <paramref name="roundTripsPerPair"/> round trips per pair delivers.</summary>
    public static long Messages(int pairs, long roundTripsPerPair) => 2 * pairs * roundTripsPerPair;

    /// <summary>What a run must deliver: every ping and pong, and each pinger's sequence numbers (1 to the round trips) once each.</summary>
    internal static RunTotals Expected(int pairs, long roundTripsPerPair)
        => new(Messages(pairs, roundTripsPerPair), pairs * (roundTripsPerPair * (roundTripsPerPair + 1) / 2));

    /// <summary>Creates the pairs and handshakes them.</summary>
    internal void SetUp(IActorContender contender, int pairs) => contender.SetUpPingPong(pairs, InFlight);

    /// <summary>One run of the game: <paramref name="roundTripsPerPair"/> round trips for each pair.</summary>
    internal static RunTotals Play(IActorContender contender, long roundTripsPerPair) => contender.RunPingPong(roundTripsPerPair);

    /// <summary>The game's name: "ping-pong, 1 in flight".</summary>
    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"ping-pong, {InFlight} in flight");
}
