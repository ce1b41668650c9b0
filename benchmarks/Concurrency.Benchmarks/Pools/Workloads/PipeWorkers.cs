using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>
/// Our pipes as a worker pool: a batch-drain queue pipe with <paramref name="threads"/> consumers sharing the work (one
/// dedicated thread each), built once; each part is a message, and a countdown says when the operation's parts have run.
/// A part that throws is recorded and fails its operation; it does not fault the pipe, which serves the next operation.
/// </summary>
public sealed class PipeWorkers(int threads) : ILabWorkers
{
    private readonly IPipe<(Action Part, Operation Done)> _pipe = Pipe.Create<(Action Part, Operation Done)>(
        PipeKind.BatchDrainQueue,
        [.. Enumerable.Repeat<Action<(Action Part, Operation Done)>>(static work => work.Done.Run(work.Part), threads)],
        new PipeOptions { Distribution = PipeDistribution.WorkSharing });

    public string Name => $"pipe, work-sharing, {threads} threads";

    public void RunAll(IReadOnlyList<Action> parts)
    {
        using var done = new Operation(parts.Count);
        foreach (var part in parts)
        {
            _pipe.Post((part, done));
        }

        if (!done.Remaining.Wait(WorkloadBounds.Operation))
        {
            throw new LabVerificationException($"{Name}: {done.Remaining.CurrentCount} of {parts.Count} parts did not run within {WorkloadBounds.Operation}.");
        }

        if (done.Failure is { } failure)
        {
            throw new LabVerificationException($"{Name}: a part failed: {failure.Message}");
        }
    }

    public void Dispose()
    {
        _pipe.Complete();
        _pipe.Completion.GetAwaiter().GetResult();
    }

    /// <summary>One operation's countdown and its first failure, written by the consumer threads.</summary>
    private sealed class Operation(int parts) : IDisposable
    {
        private Exception? _failure; // the first part's exception; set once by compare-and-swap, read after the countdown

        public CountdownEvent Remaining { get; } = new(parts);

        public Exception? Failure => Volatile.Read(ref _failure);

        public void Run(Action part)
        {
            try
            {
                part();
            }
            catch (Exception failure)
            {
                Interlocked.CompareExchange(ref _failure, failure, null);
            }
            finally
            {
                Remaining.Signal();
            }
        }

        public void Dispose() => Remaining.Dispose();
    }
}
