using System.Globalization;
using Concurrency.Benchmarks.Actors;

namespace Concurrency.Benchmarks.PlainActors;

/// <summary>
/// One game of the user-shaped actor benchmark, as a user's program plays it: set up a fresh system's actors, play one
/// run, and what it must deliver (messages or hops, and the checksum of what came back).
/// </summary>
/// <param name="Name">The game's name in tables and results.</param>
/// <param name="Messages">Messages (or hops) one run delivers: the rate's numerator.</param>
internal sealed record ActorGame(string Name, long Messages, Action<IActorContender> SetUp, Func<IActorContender, RunTotals> Run, RunTotals Expected)
{
    /// <summary>The issue's games: ping-pong, one pair per core, 2,000,000 messages; Armstrong's ring, N actors and M tokens.</summary>
    public static IReadOnlyList<ActorGame> All(int cores, bool quick)
    {
        var scale = quick ? 20 : 1;
        return
        [
            PingPong(cores, inFlight: 1, 2_000_000 / scale),
            PingPong(cores, inFlight: 100, 2_000_000 / scale),
            Ring(1_000, 1_000 / scale, allAtOnce: false),
            Ring(1_000, 1_000 / scale, allAtOnce: true),
            Ring(10_000 / scale, 100, allAtOnce: false),
            Ring(10_000 / scale, 100, allAtOnce: true),
        ];
    }

    private static ActorGame PingPong(int pairs, int inFlight, long messages)
    {
        var perPair = (messages / 2 + pairs - 1) / pairs; // round trips per pair, each two messages
        return new(
            string.Create(CultureInfo.InvariantCulture, $"ping-pong, {inFlight} in flight"),
            2 * pairs * perPair,
            contender =>
            {
                contender.SetUpPingPong(pairs, inFlight);
                Token.Shared(perPair); // the run's pings, allocated here, untimed, and kept for the process's later runs
            },
            contender => contender.RunPingPong(perPair),
            new RunTotals(2 * pairs * perPair, pairs * (perPair * (perPair + 1) / 2)));
    }

    private static ActorGame Ring(int actors, int messages, bool allAtOnce) => new(
        string.Create(CultureInfo.InvariantCulture, $"ring N={actors:N0} M={messages:N0}, {(allAtOnce ? "all tokens at once" : "one token")}"),
        (long)actors * messages,
        contender =>
        {
            contender.SetUpRing(actors);
            Token.Shared(messages); // the run's tokens, allocated here, untimed
        },
        contender => contender.RunRing(messages, allAtOnce),
        new RunTotals((long)actors * messages, (long)messages * (messages + 1) / 2));
}
