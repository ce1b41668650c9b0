namespace Concurrency.Messaging.Tests.Stress;

/// <summary>One pipe configuration in one topology, named so a test case reads as "Ring 1->3 broadcast".</summary>
internal sealed record StressCase(PipeKind Kind, PipeOptions Options, int Producers, int Consumers, PipeDistribution Distribution)
{
    /// <summary>The most one case may take, even pinned to one core.</summary>
    public static readonly TimeSpan Budget = TimeSpan.FromMinutes(2);

    public static readonly IReadOnlyDictionary<string, (PipeKind Kind, PipeOptions Options)> Kinds =
        new Dictionary<string, (PipeKind, PipeOptions)>
        {
            ["ObserveOn-TaskPool"] = (PipeKind.ObserveOn, new PipeOptions()),
            ["ObserveOn-EventLoop"] = (PipeKind.ObserveOn, new PipeOptions { Scheduler = PipeScheduler.EventLoop }),
            ["ReaderWriterLockQueue"] = (PipeKind.ReaderWriterLockQueue, new PipeOptions()),
            ["BatchDrainQueue"] = (PipeKind.BatchDrainQueue, new PipeOptions()),
            ["Channel"] = (PipeKind.Channel, new PipeOptions()),
            ["Channel-Bounded"] = (PipeKind.Channel, new PipeOptions { Capacity = 1024 }),
            ["Ring"] = (PipeKind.Ring, new PipeOptions { Capacity = 1024 }),
            ["BlockingCollection"] = (PipeKind.BlockingCollection, new PipeOptions()),
            ["BlockingCollection-Bounded"] = (PipeKind.BlockingCollection, new PipeOptions { Capacity = 1024 }),

            // The other runner for each queue: turns on the thread pool, or (a Channel's) a dedicated thread.
            ["ObserveOn-TaskPool@pool"] = (PipeKind.ObserveOn, new PipeOptions { Runner = PipeRunner.ThreadPool }),
            ["ReaderWriterLockQueue@pool"] = (PipeKind.ReaderWriterLockQueue, new PipeOptions { Runner = PipeRunner.ThreadPool }),
            ["BatchDrainQueue@pool"] = (PipeKind.BatchDrainQueue, new PipeOptions { Runner = PipeRunner.ThreadPool }),
            ["Channel@thread"] = (PipeKind.Channel, new PipeOptions { Runner = PipeRunner.DedicatedThread }),
            ["Channel-Bounded@thread"] = (PipeKind.Channel, new PipeOptions { Capacity = 1024, Runner = PipeRunner.DedicatedThread }),
            ["Ring@pool"] = (PipeKind.Ring, new PipeOptions { Capacity = 1024, Runner = PipeRunner.ThreadPool }),
            ["BlockingCollection@pool"] = (PipeKind.BlockingCollection, new PipeOptions { Runner = PipeRunner.ThreadPool }),
            ["BlockingCollection-Bounded@pool"] = (PipeKind.BlockingCollection, new PipeOptions { Capacity = 1024, Runner = PipeRunner.ThreadPool }),
        };

    public static readonly IReadOnlyList<string> Topologies = ["1->1", "4->1", "1->3-broadcast", "2->3-worksharing", "1->3-worksharing"];

    public static bool Supports(string kind, string topology)
    {
        var (pipeKind, _) = Kinds[kind];
        return topology switch
        {
            "4->1" or "2->3-worksharing" when pipeKind == PipeKind.Ring => false,
            "2->3-worksharing" or "1->3-worksharing" when pipeKind == PipeKind.ObserveOn => false,
            _ => true,
        };
    }

    public static StressCase Parse(string name)
    {
        var parts = name.Split(' ');
        var (kind, options) = Kinds[parts[0]];
        return parts[1] switch
        {
            "1->1" => new StressCase(kind, options, 1, 1, PipeDistribution.Broadcast),
            "4->1" => new StressCase(kind, options, 4, 1, PipeDistribution.Broadcast),
            "1->3-broadcast" => new StressCase(kind, options, 1, 3, PipeDistribution.Broadcast),
            "2->3-worksharing" => new StressCase(kind, options, 2, 3, PipeDistribution.WorkSharing),
            "1->3-worksharing" => new StressCase(kind, options, 1, 3, PipeDistribution.WorkSharing),
            _ => throw new ArgumentException($"Unknown topology in '{name}'.", nameof(name)),
        };
    }
}
