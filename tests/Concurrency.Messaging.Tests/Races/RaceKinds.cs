namespace Concurrency.Messaging.Tests.Races;

/// <summary>
/// Pipe configurations by name, as "Ring-16", "Channel", "BlockingCollection-64", "ObserveOn-EventLoop"; a suffix
/// "@pool" or "@thread" picks the runner (<see cref="PipeRunner.ThreadPool"/> or <see cref="PipeRunner.DedicatedThread"/>)
/// instead of the kind's own, as "Ring-16@pool" or "Channel@thread".
/// </summary>
internal static class RaceKinds
{
    public static readonly IReadOnlyList<string> Unbounded =
    [
        "ObserveOn-TaskPool", "ObserveOn-EventLoop", "ReaderWriterLockQueue", "BatchDrainQueue", "Channel", "BlockingCollection",
        "ObserveOn-TaskPool@pool", "ReaderWriterLockQueue@pool", "BatchDrainQueue@pool", "Channel@thread", "BlockingCollection@pool",
    ];

    public static readonly IReadOnlyList<string> Bounded = ["Ring", "Channel", "BlockingCollection", "Ring@pool", "Channel@thread", "BlockingCollection@pool"];

    public static readonly IReadOnlyList<int> Capacities = [1, 16, 64];

    /// <summary>Every bounded kind at every capacity, as "Ring-16" or "Ring-16@pool".</summary>
    public static IEnumerable<string> BoundedAtEveryCapacity() => Bounded.SelectMany(kind => Capacities.Select(capacity => WithCapacity(kind, capacity)));

    /// <summary>"Ring@pool" at 16 is "Ring-16@pool".</summary>
    public static string WithCapacity(string kind, int capacity)
    {
        var at = kind.IndexOf('@', StringComparison.Ordinal);
        return at < 0
            ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{kind}-{capacity}")
            : string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{kind[..at]}-{capacity}{kind[at..]}");
    }

    public static (PipeKind Kind, PipeOptions Options) Parse(string name)
    {
        var at = name.IndexOf('@', StringComparison.Ordinal);
        if (at < 0)
        {
            return ParseQueue(name);
        }

        var (kind, options) = ParseQueue(name[..at]);
        var runner = name[(at + 1)..] switch
        {
            "pool" => PipeRunner.ThreadPool,
            "thread" => PipeRunner.DedicatedThread,
            _ => throw new ArgumentException($"Unknown runner in '{name}'.", nameof(name)),
        };
        return (kind, options with { Runner = runner });
    }

    private static (PipeKind Kind, PipeOptions Options) ParseQueue(string name)
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
