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
/// it posted them. The pipe starts lazily and the outcome is computed once (see <see cref="PipeActual"/>).
/// </remarks>
internal sealed class ConcurrentProducersPipe : PipeActual
{
    private readonly ConcurrentProducersCase _case;
    private readonly ConcurrentDictionary<int, int> _producerOf = new(); // accepted id → the thread that posted it
    private int _lastId;                                                 // Interlocked

    public ConcurrentProducersPipe(ConcurrentProducersCase @case)
        : base(@case.Consumers)
        => _case = @case;

    /// <summary>Gets the ids accepted, in order: read once every post has returned.</summary>
    private List<int> Accepted => [.. _producerOf.Keys.Order()];

    /// <summary>Posts a fresh id, waiting (bounded) while a bounded pipe is full; refused only once the pipe is closed.</summary>
    public void Post(int value)
    {
        var pipe = UnderTest;
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

        Record(OperationResult.Post(value, accepted));
    }

    /// <summary>Whether the model explains the answers, and the delivery keeps the contract (see the remarks).</summary>
    public override bool Matches(BoundedFifoModel model)
        => AnswersMatch(model)
            && DeliveredExactlyOnce(Accepted)
            && Final.Handled.All(InEachProducersOrder);

    protected override string Describe()
        => $"accepted [{string.Join(",", Accepted.Select(id => $"{id}@{_producerOf[id]}"))}] ";

    protected override IPipe<int> Start()
    {
        var handlers = Enumerable.Range(0, _case.Consumers).Select(c => (Action<int>)(id => Handled[c].Add(id))).ToArray();
        return Pipe.Create<int>(_case.Kind, handlers, _case.Options);
    }

    private bool DeliveredExactlyOnce(List<int> accepted)
    {
        if (_case.Sharing)
        {
            return Final.Handled.SelectMany(h => h).Order().SequenceEqual(accepted);
        }

        return Final.Handled.All(handled => handled.Order().SequenceEqual(accepted));
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
}
