using System.Globalization;
using System.Text.RegularExpressions;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Topologies;

/// <summary>A topology: N producers → 1 consumer, or 1 producer → N consumers, each getting every message or sharing them.</summary>
public sealed partial record Topology(int Producers, int Consumers, PipeDistribution Distribution = PipeDistribution.Broadcast)
{
    /// <summary>The topology as a case names it: "2->1", "1->2 broadcast", "1->4 work-sharing".</summary>
    public override string ToString() => Consumers == 1
        ? string.Create(CultureInfo.InvariantCulture, $"{Producers}->1")
        : string.Create(CultureInfo.InvariantCulture, $"{Producers}->{Consumers} {(Distribution == PipeDistribution.WorkSharing ? "work-sharing" : "broadcast")}");

    /// <summary>The topology a case's name ends in ("Channel 2->1"), or null.</summary>
    public static Topology? Ending(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return Pattern().Match(name) is { Success: true } match
            ? new Topology(
                int.Parse(match.Groups["producers"].Value, CultureInfo.InvariantCulture),
                int.Parse(match.Groups["consumers"].Value, CultureInfo.InvariantCulture),
                match.Groups["sharing"].Success ? PipeDistribution.WorkSharing : PipeDistribution.Broadcast)
            : null;
    }

    [GeneratedRegex(@" (?<producers>\d+)->(?<consumers>\d+)(?: (?:broadcast|(?<sharing>work-sharing)))?$")]
    private static partial Regex Pattern();
}

/// <summary>How the topology game builds a contender: a pipe kind, and its capacity where bounded (null: unbounded).</summary>
public sealed record TopologyPipe(PipeKind Kind, int? Capacity = null)
{
    /// <summary>
    /// Whether the pipe has the topology: the ring takes one producer (a single-producer ring), and Rx's ObserveOn hands
    /// every message to every subscriber, so it has no work-sharing.
    /// </summary>
    public bool Supports(Topology topology)
        => (Kind != PipeKind.Ring || topology.Producers == 1) && (Kind != PipeKind.ObserveOn || topology.Distribution == PipeDistribution.Broadcast);
}

/// <summary>One case of the topology game: a contender in one topology, named "Channel 2->1" (the case's parameter value).</summary>
public sealed record TopologyCase(Contender<TopologyPipe> Pipe, Topology Topology)
{
    public override string ToString() => $"{Pipe.Name} {Topology}";
}

/// <summary>
/// The topology game's contenders: every pipe that has a topology of more than one producer or consumer, each in the
/// topologies it supports, N = 2 and 4. "ObserveOn" is Rx's ObserveOn behind the pipe interface, so it is Rx's.
/// </summary>
public static class TopologyContenders
{
    public static ContenderRegistry<TopologyPipe> Registry { get; } = new("topologies",
    [
        new("ObserveOn", ContenderFamily.Rx, new TopologyPipe(PipeKind.ObserveOn)) { Note = "Rx's ObserveOn behind the pipe interface" },
        new("ReaderWriterLockQueue", ContenderFamily.Ours, new TopologyPipe(PipeKind.ReaderWriterLockQueue)),
        new("BatchDrainQueue", ContenderFamily.Ours, new TopologyPipe(PipeKind.BatchDrainQueue)),
        new("Channel", ContenderFamily.Ours, new TopologyPipe(PipeKind.Channel)),
        new("ChannelBounded", ContenderFamily.Ours, new TopologyPipe(PipeKind.Channel, HandOff.Capacities.Bounded)),
        new("Ring", ContenderFamily.Ours, new TopologyPipe(PipeKind.Ring, HandOff.Capacities.Bounded)),
        new("BlockingCollection", ContenderFamily.Ours, new TopologyPipe(PipeKind.BlockingCollection)),
    ]);

    /// <summary>Gets the topologies measured: for N = 2 and 4, N → 1, 1 → N broadcast and 1 → N work-sharing.</summary>
    public static IReadOnlyList<Topology> Topologies { get; } =
    [
        .. new[] { 2, 4 }.SelectMany(n => new Topology[] { new(n, 1), new(1, n), new(1, n, PipeDistribution.WorkSharing) }),
    ];

    /// <summary>Gets every case, each contender in the topologies it supports, in table order (BenchmarkDotNet's [ParamsSource]).</summary>
    public static IEnumerable<TopologyCase> Cases
        => Registry.All.SelectMany(pipe => Topologies.Where(pipe.Build.Supports).Select(topology => new TopologyCase(pipe, topology)));

    /// <summary>The case of that name ("Channel 2->1"), or null.</summary>
    public static TopologyCase? Find(string name) => Cases.FirstOrDefault(c => c.ToString() == name);
}
