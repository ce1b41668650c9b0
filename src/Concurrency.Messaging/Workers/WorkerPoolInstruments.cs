using System.Diagnostics.Metrics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Workers;

/// <summary>
/// The worker pools' instruments on <see cref="LibraryMeter"/>: the counters of <see cref="WorkerPoolMetrics"/>, summed
/// over every pool of the process. Events are counters, added to only while a listener is enabled on them; the states
/// (workers alive and idle, tasks queued) are observable, read from the live pools when a listener collects.
/// </summary>
internal static class WorkerPoolInstruments
{
    // Every instrument is made when the type is first touched (a pool registering), so a listener sees all of them at once.
    public static LiveInstances<ElasticWorkerPool> Live { get; } = new();

    public static ObservableUpDownCounter<long> WorkersAlive { get; } = Live.Gauge("concurrency.workers.alive", pool => pool.Metrics.WorkersAlive, "{thread}", "Worker threads alive, retiring ones included.");

    public static ObservableUpDownCounter<long> WorkersIdle { get; } = Live.Gauge("concurrency.workers.idle", pool => pool.Metrics.WorkersIdle, "{thread}", "Workers parked, waiting for a task.");

    public static ObservableUpDownCounter<long> TasksQueued { get; } = Live.Gauge("concurrency.workers.tasks.queued", pool => pool.Metrics.TasksQueued, "{task}", "Tasks submitted and not yet taken by a worker.");

    public static Counter<long> WorkersCreated { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.workers.created", "{thread}", "Worker threads started.");

    public static Counter<long> WorkersRetired { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.workers.retired", "{thread}", "Workers retired (a poison pill or an idle timeout).");

    public static Counter<long> TasksCompleted { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.workers.tasks.completed", "{task}", "Tasks that ran to the end, thrown ones included.");

    public static Counter<long> TasksFailed { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.workers.tasks.failed", "{task}", "Posted tasks that threw.");
}
