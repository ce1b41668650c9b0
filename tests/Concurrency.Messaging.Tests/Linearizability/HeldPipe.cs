using System.Collections.Concurrent;

namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// The actual state for CsCheck's <c>SampleParallel</c>: a pipe whose consumers are each held inside their handler on a
/// sentinel message, so that nothing the operations post is consumed until the check releases them. While held, a post's
/// answer depends only on the order of the posts and completions, which is what a sequential model can predict.
/// </summary>
/// <remarks>
/// CsCheck generates an actual for every sequential order it tries against the model, so the pipe starts lazily, on the
/// first operation; only the instance the operations run on ever creates one. The final state is computed once (the
/// equality runs on many threads at once, one per candidate order): release the consumers, complete, wait for
/// <see cref="IPipe{T}.Completion"/> (bounded), and take what each consumer handled.
/// </remarks>
internal sealed class HeldPipe
{
    private readonly HeldPipeCase _case;
    private readonly Lazy<IPipe<int>> _pipe;
    private readonly Lazy<Outcome> _outcome;
    private readonly ManualResetEventSlim _release = new(false);
    private readonly SemaphoreSlim _held = new(0);
    private readonly List<int>[] _handled;                    // each written by its own consumer only
    private readonly ConcurrentQueue<string> _results = new(); // one entry per operation, from any thread
    private readonly Lock _producer = new();

    public HeldPipe(HeldPipeCase @case)
    {
        _case = @case;
        _handled = [.. Enumerable.Range(0, @case.Consumers).Select(_ => new List<int>())];
        _pipe = new Lazy<IPipe<int>>(Start, LazyThreadSafetyMode.ExecutionAndPublication);
        _outcome = new Lazy<Outcome>(Finish, LazyThreadSafetyMode.ExecutionAndPublication);
    }

    public void TryPost(int value)
    {
        var pipe = _pipe.Value;
        bool accepted;
        if (_case.SerializeProducers)
        {
            lock (_producer)
            {
                accepted = pipe.TryPost(value);
            }
        }
        else
        {
            accepted = pipe.TryPost(value);
        }

        _results.Enqueue(OperationResult.Post(value, accepted));
    }

    public void TryComplete() => _results.Enqueue(OperationResult.Complete(_pipe.Value.TryComplete()));

    /// <summary>
    /// Whether the model explains what happened: the same answers to the same operations, every accepted value handled
    /// exactly once (by every consumer, in order, for broadcast or a single consumer; by exactly one consumer, each in
    /// order, for work-sharing), nothing refused handled, nothing dropped or counted unhandled.
    /// </summary>
    public bool Matches(BoundedFifoModel model)
    {
        var outcome = _outcome.Value;
        if (outcome.Dropped != 0 || outcome.Unhandled != 0)
        {
            return false;
        }

        if (!outcome.Results.SequenceEqual(model.Results.Order(StringComparer.Ordinal), StringComparer.Ordinal))
        {
            return false;
        }

        if (!_case.Sharing)
        {
            return outcome.Handled.All(handled => handled.SequenceEqual(model.Accepted));
        }

        return outcome.Handled.SelectMany(h => h).Order().SequenceEqual(model.Accepted.Order())
            && outcome.Handled.All(handled => IsSubsequence(handled, model.Accepted));
    }

    public override string ToString()
        => _outcome.IsValueCreated
            ? $"handled {string.Join(" | ", _outcome.Value.Handled.Select(h => $"[{string.Join(",", h)}]"))} "
              + $"results [{string.Join(" ", _outcome.Value.Results)}] dropped {_outcome.Value.Dropped} unhandled {_outcome.Value.Unhandled}"
            : $"results [{string.Join(" ", _results)}]";

    private static bool IsSubsequence(List<int> part, List<int> whole)
    {
        var at = 0;
        foreach (var value in part)
        {
            while (at < whole.Count && whole[at] != value)
            {
                at++;
            }

            if (at == whole.Count)
            {
                return false;
            }

            at++;
        }

        return true;
    }

    private IPipe<int> Start()
    {
        var handlers = Enumerable.Range(0, _case.Consumers).Select(c => (Action<int>)(value => Handle(c, value))).ToArray();
        var pipe = Pipe.Create<int>(_case.Kind, handlers, _case.Options);

        // Hold every consumer inside its handler on a sentinel. Work-sharing consumers take one sentinel each: post the next
        // only once the previous one is held, so the busy consumer cannot take it.
        var sentinels = _case.Sharing ? _case.Consumers : 1;
        var holdsPerSentinel = _case.Sharing ? 1 : _case.Consumers;
        for (var i = 0; i < sentinels; i++)
        {
            if (!pipe.TryPost(-1 - i))
            {
                throw new InvalidOperationException("The pipe refused a sentinel.");
            }

            for (var held = 0; held < holdsPerSentinel; held++)
            {
                if (!_held.Wait(TestTimeouts.Default))
                {
                    throw new TimeoutException("A consumer never reached its handler.");
                }
            }
        }

        return pipe;
    }

    private void Handle(int consumer, int value)
    {
        if (value < 0)
        {
            _held.Release();
        }

        _release.Wait(TestTimeouts.Default);
        if (value >= 0)
        {
            _handled[consumer].Add(value);
        }
    }

    private Outcome Finish()
    {
        var pipe = _pipe.Value;
        _release.Set();
        pipe.TryComplete();
        if (!pipe.Completion.Wait(TestTimeouts.Default))
        {
            throw new TimeoutException("The pipe did not finish once its consumers were released.");
        }

        return new Outcome(
            [.. _handled.Select(h => h.ToList())],
            [.. _results.Order(StringComparer.Ordinal)],
            pipe.DroppedCount,
            pipe.UnhandledCount);
    }

    private sealed record Outcome(List<int>[] Handled, List<string> Results, long Dropped, long Unhandled);
}
