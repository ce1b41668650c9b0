
namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// One game of the user-shaped actor benchmark, as a user's program plays it: set up a fresh system's actors, play one
/// run, and what it must deliver (messages or hops, and the checksum of what came back). The games are the suite's
/// (<see cref="ActorGames"/>), under the same names.
/// </summary>
/// <param name="Name">The game's one name in tables and results (<see cref="PingPongGame"/>'s or <see cref="RingGame"/>'s).</param>
/// <param name="Messages">Messages (or hops) one run delivers: the rate's numerator.</param>
internal sealed record ActorGame(string Name, long Messages, Action<IActorContender> SetUp, Func<IActorContender, RunTotals> Run, RunTotals Expected)
{
    /// <summary>
    /// The suite's games: ping-pong, one pair per core, 2,000,000 messages a run; Armstrong's rings. Quick: a twentieth the
    /// size (a ring of fewer actors or tokens is another game, and is named so).
    /// </summary>
    public static IReadOnlyList<ActorGame> All(int cores, bool quick)
    {
        var scale = quick ? 20 : 1;
        return
        [
            .. ActorGames.PingPongs.Select(game => PingPong(game, cores, 2_000_000 / scale)),
            .. ActorGames.Rings.Select(game => Ring(Shrunk(game, scale))),
        ];
    }

    /// <summary>The ring a twentieth the size: the thousand-actor rings fewer tokens, the ten-thousand-actor rings fewer actors.</summary>
    private static RingGame Shrunk(RingGame game, int scale)
        => scale == 1 ? game : game.Tokens >= game.Actors ? game with { Tokens = game.Tokens / scale } : game with { Actors = game.Actors / scale };

    private static ActorGame PingPong(PingPongGame game, int pairs, long messages)
    {
        var perPair = (messages / 2 + pairs - 1) / pairs; // round trips per pair, each two messages
        return new(
            game.ToString(),
            PingPongGame.Messages(pairs, perPair),
            contender =>
            {
                game.SetUp(contender, pairs);
                Token.Shared(perPair); // the run's pings, allocated here, untimed, and kept for the process's later runs
            },
            contender => PingPongGame.Play(contender, perPair),
            PingPongGame.Expected(pairs, perPair));
    }

    private static ActorGame Ring(RingGame game) => new(
        game.ToString(),
        game.Hops,
        contender =>
        {
            game.SetUp(contender);
            Token.Shared(game.Tokens); // the run's tokens, allocated here, untimed
        },
        game.Play,
        game.Expected);
}
