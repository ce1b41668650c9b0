using System.Collections.Concurrent;

namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// The actual state for CsCheck's <c>SampleParallel</c>: a pipe declared for several producers, posted to by CsCheck's
/// threads at once while its consumers run. Each post carries a fresh id, taken just before the post, so ids rise along
/// each thread's own order; the thread that posted is the producer.
/// </summary>
/// <remarks>
/// With free consumers, which interleaving of the producers the pipe picked is not predictable, and none is required:
/// <see cref="Matches"/> asks the model only to explain the answers (accepted until a completion, refused after), and
/// checks the delivery itself against the pipe's contract: every accepted post handled exactly once (by every consumer for
/// broadcast, by exactly one for work-sharing), nothing refused handled, and each producer's messages handled in the order
/// it posted them. As in <see cref="HeldPipe"/>, the pipe starts lazily (CsCheck makes an actual for every order it tries)
/// and the outcome is computed once.
/// </remarks>
internal sealed class ConcurrentProducersPipe
{
    private readonly ConcurrentProducersCase _case;
    private readonly Lazy<IPipe<int>> _pipe;
    private readonly Lazy<Outcome> _outcome;
    private readonly List<int>[] _handled;                      // each written by its own consumer only
    private readonly ConcurrentQueue<string> _results = new();   // one entry per operation, from any thread
    private readonly ConcurrentDictionary<int, int> _producerOf = new(); // accepted id → the thread that posted it
    private int _lastId;                                         // Interlocked

    public ConcurrentProducersPipe(ConcurrentProducersCase @case)
    {
        _case = @case;
        _handled = [.. Enumerable.Range(0, @case.Consumers).Select(_ => new List<int>())];
        _pipe = new Lazy<IPipe<int>>(Start, LazyThreadSafetyMode.ExecutionAndPublication);
        _outcome = new Lazy<Outcome>(Finish, LazyThreadSafetyMode.ExecutionAndPublication);
    }

    /// <summary>Posts a fresh id, waiting (bounded) while a bounded pipe is full; refused only once the pipe is closed.</summary>
    public void Post(int value)
    {
        var pipe = _pipe.Value;
        var id = Interlocked.Increment(ref _lastId);
        bool accepted;
        using (var bound = new CancellationTokenSource(TestTimeouts.Default))
        {
            try
            {
                pipe.Post(id, bound.Token);
                accepted = true;
            }
            catch (PipeClosedException)
            {
                accepted = false;
            }
        }

        if (accepted)
        {
            _producerOf[id] = Environment.CurrentManagedThreadId;
        }

        _results.Enqueue(OperationResult.Post(value, accepted));
    }

    public void TryComplete() => _results.Enqueue(OperationResult.Complete(_pipe.Value.TryComplete()));

    /// <summary>Whether the model explains the answers, and the delivery keeps the contract (see the remarks).</summary>
    public bool Matches(BoundedFifoModel model)
    {
        var outcome = _outcome.Value;
        return outcome.Dropped == 0
            && outcome.Unhandled == 0
            && outcome.Results.SequenceEqual(model.Results.Order(StringComparer.Ordinal), StringComparer.Ordinal)
            && DeliveredExactlyOnce(outcome)
            && outcome.Handled.All(InEachProducersOrder);
    }

    public override string ToString()
        => _outcome.IsValueCreated
            ? $"accepted [{string.Join(",", _outcome.Value.Accepted.Select(id => $"{id}@{_producerOf[id]}"))}] "
              + $"handled {string.Join(" | ", _outcome.Value.Handled.Select(h => $"[{string.Join(",", h)}]"))} "
              + $"results [{string.Join(" ", _outcome.Value.Results)}] dropped {_outcome.Value.Dropped} unhandled {_outcome.Value.Unhandled}"
            : $"results [{string.Join(" ", _results)}]";

    private bool DeliveredExactlyOnce(Outcome outcome)
    {
        if (_case.Sharing)
        {
            return outcome.Handled.SelectMany(h => h).Order().SequenceEqual(outcome.Accepted);
        }

        return outcome.Handled.All(handled => handled.Order().SequenceEqual(outcome.Accepted));
    }

    /// <summary>Within what one consumer handled, each producer's ids rise (ids rise along each producer's posts).</summary>
    private bool InEachProducersOrder(List<int> handled)
    {
        var last = new Dictionary<int, int>();
        foreach (var id in handled)
        {
            if (!_producerOf.TryGetValue(id, out var producer))
            {
                return false; // handled, never accepted: caught by the exactly-once check too
            }

            if (last.TryGetValue(producer, out var previous) && previous > id)
            {
                return false;
            }

            last[producer] = id;
        }

        return true;
    }

    private IPipe<int> Start()
    {
        var handlers = Enumerable.Range(0, _case.Consumers).Select(c => (Action<int>)(id => _handled[c].Add(id))).ToArray();
        return Pipe.Create<int>(_case.Kind, handlers, _case.Options);
    }

    private Outcome Finish()
    {
        var pipe = _pipe.Value;
        pipe.TryComplete();
        if (!pipe.Completion.Wait(TestTimeouts.Default))
        {
            throw new TimeoutException("The pipe did not finish once completed.");
        }

        return new Outcome(
            [.. _handled.Select(h => h.ToList())],
            [.. _producerOf.Keys.Order()],
            [.. _results.Order(StringComparer.Ordinal)],
            pipe.DroppedCount,
            pipe.UnhandledCount);
    }

    private sealed record Outcome(List<int>[] Handled, List<int> Accepted, List<string> Results, long Dropped, long Unhandled);
}
