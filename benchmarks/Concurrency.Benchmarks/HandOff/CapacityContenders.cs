using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// The capacity sweep's contenders: the bounded pipes and drop-in operators, 1 producer → 1 consumer, and the ring's
/// 1 → 3 broadcast, each built at the capacity it is given.
/// </summary>
public static class CapacityContenders
{
    public static ContenderRegistry<Func<int, IMessagePath>> Registry { get; } = new("capacity sweep",
    [
        Pipe("Ring", PipeKind.Ring),
        Pipe("Channel", PipeKind.Channel),
        Pipe("BlockingCollection", PipeKind.BlockingCollection),
        new("ObserveOnRing", ContenderFamily.Ours, capacity => new ObservablePath(s => s.ObserveOnRing(capacity))),
        new("ObserveOnChannel", ContenderFamily.Ours, capacity => new ObservablePath(s => s.ObserveOnChannel(capacity))),
        Pipe("RingBroadcast3", PipeKind.Ring, consumers: 3),
    ]);

    private static Contender<Func<int, IMessagePath>> Pipe(string name, PipeKind kind, int consumers = 1)
        => new(name, ContenderFamily.Ours, capacity => new PipePath(kind, new PipeOptions { Capacity = capacity }, consumers));
}
