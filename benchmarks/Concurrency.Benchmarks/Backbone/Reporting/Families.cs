using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Benchmarks.HandOff.Shapes;
using Concurrency.Benchmarks.Topologies;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// A contender's family from its own name (the Path, Case, Kind or Contender parameter), never from a table label, whose first word
/// may be another parameter: the registries' word first (hand-off, actors, topologies, runners, the loop's shapes), then
/// the naming rules for the scenarios without a registry.
/// "ObserveOn 2->1" in the topologies is Rx's ObserveOn behind the pipe interface, so Rx; our operators are named
/// ObserveOnRing, ObserveOnChannel, … and stay ours.
/// </summary>
public static class Families
{
    public static ContenderFamily Of(string contender)
    {
        if (HandOffContenders.Registry.TryFind(contender, out var handOff))
        {
            return handOff.Family;
        }

        if (ActorContenders.Registry.TryFind(contender, out var actors))
        {
            return actors.Family;
        }

        if (TopologyContenders.Find(contender) is { } topology)
        {
            return topology.Pipe.Family;
        }

        if (RunnerContenders.Registry.TryFind(contender, out var runner))
        {
            return runner.Family;
        }

        if (ShapeContenders.Registry.TryFind(contender, out var shape))
        {
            return shape.Family;
        }

        var name = contender.Split(' ', 2)[0];
        return name switch
        {
            "DirectCall" or "RawRing" => ContenderFamily.Ceiling,
            "ObserveOn" => ContenderFamily.Rx,
            _ when name.StartsWith("Rx", StringComparison.Ordinal) => ContenderFamily.Rx,
            _ when name.StartsWith("Dataflow", StringComparison.Ordinal) => ContenderFamily.Dataflow,
            _ => ContenderFamily.Ours,
        };
    }
}
