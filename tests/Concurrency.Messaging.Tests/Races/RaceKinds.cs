using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Tests.Races;

/// <summary>Pipe configurations by name, as "Ring-16", "Channel", "BlockingCollection-64", "ObserveOn-EventLoop".</summary>
internal static class RaceKinds
{
    public static readonly IReadOnlyList<string> Unbounded =
        ["ObserveOn-TaskPool", "ObserveOn-EventLoop", "ReaderWriterLockQueue", "BatchDrainQueue", "Channel", "BlockingCollection"];

    public static readonly IReadOnlyList<string> Bounded = ["Ring", "Channel", "BlockingCollection"];

    public static readonly IReadOnlyList<int> Capacities = [1, 16, 64];

    public static (PipeKind Kind, PipeOptions Options) Parse(string name)
    {
        var dash = name.LastIndexOf('-');
        if (dash > 0 && int.TryParse(name[(dash + 1)..], System.Globalization.CultureInfo.InvariantCulture, out var capacity))
        {
            return (Enum.Parse<PipeKind>(name[..dash]), new PipeOptions { Capacity = capacity });
        }

        return name switch
        {
            "ObserveOn-TaskPool" => (PipeKind.ObserveOn, new PipeOptions()),
            "ObserveOn-EventLoop" => (PipeKind.ObserveOn, new PipeOptions { Scheduler = PipeScheduler.EventLoop }),
            _ => (Enum.Parse<PipeKind>(name), new PipeOptions()),
        };
    }

    public static bool Supports(PipeKind kind, int producers, int consumers, PipeDistribution distribution) => kind switch
    {
        PipeKind.Ring => producers == 1,
        PipeKind.ObserveOn => consumers == 1 || distribution == PipeDistribution.Broadcast,
        _ => true,
    };
}
