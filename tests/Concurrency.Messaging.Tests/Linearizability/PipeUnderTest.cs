using System.Collections.Concurrent;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>A pipe with one consumer that records what it handled, and a log of every call's result.</summary>
internal sealed class PipeUnderTest
{
    public static readonly IReadOnlyDictionary<string, (PipeKind Kind, PipeOptions Options)> Configurations =
        new Dictionary<string, (PipeKind, PipeOptions)>
        {
            ["ObserveOn"] = (PipeKind.ObserveOn, new PipeOptions { Producers = 4 }),
            ["ReaderWriterLockQueue"] = (PipeKind.ReaderWriterLockQueue, new PipeOptions { Producers = 4 }),
            ["BatchDrainQueue"] = (PipeKind.BatchDrainQueue, new PipeOptions { Producers = 4 }),
            ["Channel"] = (PipeKind.Channel, new PipeOptions { Producers = 4 }),
            ["Channel-Bounded"] = (PipeKind.Channel, new PipeOptions { Producers = 4, Capacity = 64 }),
            ["BlockingCollection"] = (PipeKind.BlockingCollection, new PipeOptions { Producers = 4 }),
            ["BlockingCollection-Bounded"] = (PipeKind.BlockingCollection, new PipeOptions { Producers = 4, Capacity = 64 }),
        };

    private readonly IPipe<int> _pipe;
    private readonly List<int> _handled = [];                       // written by the single consumer only
    private readonly ConcurrentQueue<string> _results = new();       // one entry per call, from any thread
    private List<int>? _drained;                                     // the handled sequence, once the pipe has finished

    public PipeUnderTest(PipeKind kind, PipeOptions options) => _pipe = Pipe.Create<int>(kind, _handled.Add, options);

    public void TryPost(int value) => _results.Enqueue($"TryPost({value})={_pipe.TryPost(value)}");

    public void TryComplete() => _results.Enqueue($"TryComplete={_pipe.TryComplete()}");

    /// <summary>Finishes the pipe once, then compares the handled sequence and every call's result with the model's.</summary>
    public bool Matches(FifoModel model)
    {
        if (_drained is null)
        {
            _pipe.TryComplete();
            if (!_pipe.Completion.Wait(TestTimeouts.Default))
            {
                throw new TimeoutException("The pipe did not finish draining.");
            }

            _drained = _handled;
        }

        return _drained.SequenceEqual(model.Accepted)
            && _results.Order(StringComparer.Ordinal).SequenceEqual(model.Results.Order(StringComparer.Ordinal));
    }

    public override string ToString() => $"handled [{string.Join(",", _handled)}] results [{string.Join(" ", _results)}]";
}
