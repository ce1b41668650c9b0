using System.Globalization;
using System.Text.RegularExpressions;
using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Backbone.Idle;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Benchmarks.HandOff.Shapes;
using Concurrency.Benchmarks.Topologies;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>Which way a figure was taken: BenchmarkDotNet's steady state, a plain program timing the game, or another command.</summary>
public enum TakenBy
{
    /// <summary>The BenchmarkDotNet suite (REPORT.json, through <c>report</c>).</summary>
    Suite,

    /// <summary><c>loop</c> or <c>actors</c>: a fresh process timing the game with a Stopwatch, as a user's program would.</summary>
    PlainProgram,

    /// <summary>A command of its own (<c>idle</c>, <c>lab grpc</c>).</summary>
    Command,
}

/// <summary>
/// What a figure is of, typed: the game and its conditions (shape, topology, game size), the phase, and which way it was
/// taken, read from a measurement's scenario and conditions here and nowhere else, so the decision table finds a row by
/// what it is. The suite and the plain program name one game the same way (<see cref="ActorGames"/>, which also reads the
/// names results carried before).
/// </summary>
/// <param name="TakenBy">Which way the figure was taken.</param>
/// <param name="Phase">When in the process's life.</param>
public abstract partial record Subject(TakenBy TakenBy, Phase Phase)
{
    /// <summary>
    /// The hand-off headline: one producer posting small preallocated objects through a pipe that lives through the run,
    /// to a handler that verifies count, checksum and order (the suite's HeadlineBenchmarks, <c>loop</c>), at the
    /// headline's capacities unless <paramref name="Capacity"/> names another.
    /// </summary>
    public sealed record Headline(TakenBy TakenBy, Phase Phase, int? Capacity = null) : Subject(TakenBy, Phase);

    /// <summary>A shape users have (<c>loop --shapes</c>): a message and a handler, through a path built with default options.</summary>
    public sealed record Shape(LoopShape LoopShape, Phase Phase) : Subject(TakenBy.PlainProgram, Phase);

    /// <summary>A topology of the topology game (TopologyBenchmarks), whichever pipe plays it.</summary>
    public sealed record InTopology(Topology Topology) : Subject(TakenBy.Suite, Phase.Steady);

    /// <summary>What idle consumers cost (<c>idle</c>).</summary>
    public sealed record IdlePipes() : Subject(TakenBy.Command, Phase.Steady);

    /// <summary>An actor ping-pong game.</summary>
    public sealed record PingPong(PingPongGame Game, TakenBy TakenBy, Phase Phase) : Subject(TakenBy, Phase);

    /// <summary>An actor ring game.</summary>
    public sealed record Ring(RingGame Game, TakenBy TakenBy, Phase Phase) : Subject(TakenBy, Phase);

    /// <summary>Messages across processes (<c>lab grpc</c>).</summary>
    public sealed record CrossProcess() : Subject(TakenBy.Command, Phase.Steady);

    /// <summary>One-way messages across processes through a NATS server (<c>lab nats</c>).</summary>
    public sealed record ThroughNats() : Subject(TakenBy.Command, Phase.Steady);

    /// <summary>Identities handed out across processes (<c>lab replicas</c>).</summary>
    public sealed record Identities() : Subject(TakenBy.Command, Phase.Steady);

    /// <summary>What <paramref name="measurement"/> is a figure of, or null where it is of nothing the decision table asks about.</summary>
    public static Subject? Of(Measurement measurement)
    {
        ArgumentNullException.ThrowIfNull(measurement);
        var (conditions, phase) = (measurement.Conditions, measurement.Phase);
        return measurement.Scenario switch
        {
            nameof(HeadlineBenchmarks) => HeadlineAt(TakenBy.Suite, phase, conditions),
            LoopCommand.Scenario => HeadlineAt(TakenBy.PlainProgram, phase, conditions),
            LoopShapes.Scenario => LoopShape.All.Where(s => s.Conditions == conditions).Select(s => (Subject)new Shape(s, phase)).FirstOrDefault(),
            nameof(TopologyBenchmarks) => Topology.Ending(measurement.Contender) is { } topology ? new InTopology(topology) : null,
            IdleCommand.Scenario => new IdlePipes(),
            nameof(ActorPingPongBenchmarks) => ActorGameOf(TakenBy.Suite, phase, conditions),
            nameof(ActorRingBenchmarks) => ActorGameOf(TakenBy.Suite, phase, conditions),
            ActorsCommand.Scenario => ActorGameOf(TakenBy.PlainProgram, phase, conditions),
            CrossProcessScenario => new CrossProcess(),
            NatsScenario => new ThroughNats(),
            ReplicasScenario => new Identities(),
            _ => null,
        };
    }

    /// <summary>The scenario <c>lab grpc</c> files its figures under.</summary>
    private const string CrossProcessScenario = "grpc";

    /// <summary>The scenario <c>lab nats</c> files its figures under.</summary>
    private const string NatsScenario = "nats";

    /// <summary>The scenario <c>lab replicas</c> files its figures under.</summary>
    internal const string ReplicasScenario = "replicas";

    private static Headline? HeadlineAt(TakenBy takenBy, Phase phase, string conditions)
    {
        if (conditions.Length == 0)
        {
            return new Headline(takenBy, phase);
        }

        return CapacityCondition().Match(conditions) is { Success: true } capacity
            ? new Headline(takenBy, phase, int.Parse(capacity.Groups[1].Value, CultureInfo.InvariantCulture))
            : null;
    }

    private static Subject? ActorGameOf(TakenBy takenBy, Phase phase, string conditions)
        => ActorGames.PingPongNamed(conditions) is { } pingPong ? new PingPong(pingPong, takenBy, phase)
            : ActorGames.RingNamed(conditions) is { } ring ? new Ring(ring, takenBy, phase)
            : null;

    [GeneratedRegex(@"^Capacity=(\d+)$")]
    private static partial Regex CapacityCondition();
}
