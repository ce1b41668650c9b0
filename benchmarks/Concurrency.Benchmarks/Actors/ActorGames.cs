using System.Globalization;
using System.Text.RegularExpressions;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// The actor games, each under its one name (its <see cref="PingPongGame"/> or <see cref="RingGame"/>): the suite's
/// parameters and the plain program (<c>actors</c>) both enumerate them, and a result's conditions are read back to its
/// game here, the names results carried before the games had one included.
/// </summary>
public static partial class ActorGames
{
    /// <summary>Gets the ping-pong games: one ping in flight per pair (latency), and a full window of 100 (throughput).</summary>
    public static IReadOnlyList<PingPongGame> PingPongs { get; } = [new(1), new(100)];

    /// <summary>Gets the ring games: a thousand actors with a thousand tokens, and ten thousand with a hundred, each part.</summary>
    public static IReadOnlyList<RingGame> Rings { get; } =
    [
        new(1_000, 1_000, RingPart.OneAtATime),
        new(1_000, 1_000, RingPart.AllAtOnce),
        new(10_000, 100, RingPart.OneAtATime),
        new(10_000, 100, RingPart.AllAtOnce),
    ];

    /// <summary>
    /// The ping-pong game a result's conditions name: the game's name ("ping-pong, 1 in flight"), or the suite's
    /// parameter before the games had one name ("InFlight=1"); null for any other conditions.
    /// </summary>
    public static PingPongGame? PingPongNamed(string conditions)
    {
        ArgumentNullException.ThrowIfNull(conditions);
        var match = PingPongName().Match(conditions);
        return match.Success ? new PingPongGame(Number(match.Groups["inFlight"])) : null;
    }

    /// <summary>
    /// The ring game a result's conditions name: the game's name ("ring N=1,000 M=1,000, all tokens at once"), or the
    /// suite's parameters before the games had one name ("Size=1000x1000, Part=AllAtOnce"); null for any other conditions.
    /// </summary>
    public static RingGame? RingNamed(string conditions)
    {
        ArgumentNullException.ThrowIfNull(conditions);
        if (RingName().Match(conditions) is { Success: true } name)
        {
            return new RingGame(Number(name.Groups["actors"]), Number(name.Groups["tokens"]), name.Groups["all"].Success ? RingPart.AllAtOnce : RingPart.OneAtATime);
        }

        return OldRingName().Match(conditions) is { Success: true } old
            ? new RingGame(Number(old.Groups["actors"]), Number(old.Groups["tokens"]), Enum.Parse<RingPart>(old.Groups["part"].Value))
            : null;
    }

    private static int Number(Group group) => int.Parse(group.Value, NumberStyles.AllowThousands, CultureInfo.InvariantCulture);

    [GeneratedRegex(@"^(?:ping-pong, (?<inFlight>\d+) in flight|InFlight=(?<inFlight>\d+))$")]
    private static partial Regex PingPongName();

    [GeneratedRegex(@"^ring N=(?<actors>[\d,]+) M=(?<tokens>[\d,]+), (?:(?<all>all tokens at once)|one token)$")]
    private static partial Regex RingName();

    [GeneratedRegex(@"^Size=(?<actors>\d+)x(?<tokens>\d+), Part=(?<part>OneAtATime|AllAtOnce)$")]
    private static partial Regex OldRingName();
}
