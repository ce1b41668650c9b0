using System.Collections.Concurrent;

namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// What the pipe suites' actual states share. CsCheck makes an actual for every sequential order it tries against the
/// model, so the pipe starts lazily, on the first operation: only the instance the operations run on ever creates one.
/// Each operation records its answer as it returns. The outcome is computed once (the equality runs on many threads at
/// once, one per candidate order): <see cref="BeforeFinish"/>, complete, wait for <see cref="IPipe{T}.Completion"/>
/// (bounded), and take what each consumer handled, with the pipe's dropped and unhandled counts.
/// </summary>
internal abstract class PipeActual : ILinearizable<BoundedFifoModel>
{
    private readonly Lazy<IPipe<int>> _pipe;
    private readonly Lazy<Outcome> _outcome;
    private readonly ConcurrentQueue<string> _results = new(); // one entry per operation, from any thread

    protected PipeActual(int consumers)
    {
        Handled = [.. Enumerable.Range(0, consumers).Select(_ => new List<int>())];
        _pipe = new Lazy<IPipe<int>>(Start, LazyThreadSafetyMode.ExecutionAndPublication);
        _outcome = new Lazy<Outcome>(Finish, LazyThreadSafetyMode.ExecutionAndPublication);
    }

    /// <summary>Gets what each consumer handled, in order; each list is written by its own consumer only.</summary>
    protected List<int>[] Handled { get; }

    /// <summary>Gets the pipe under test, made by <see cref="Start"/> on first use.</summary>
    protected IPipe<int> UnderTest => _pipe.Value;

    /// <summary>Gets the outcome, computed on first use: only once every operation has returned.</summary>
    protected Outcome Final => _outcome.Value;

    public void TryComplete() => Record(OperationResult.Complete(UnderTest.TryComplete()));

    /// <summary>Whether the model explains what happened: its answers, and the delivery as the pipe's contract says.</summary>
    public abstract bool Matches(BoundedFifoModel model);

    public override string ToString()
        => _outcome.IsValueCreated
            ? $"{Describe()}handled {string.Join(" | ", Final.Handled.Select(h => $"[{string.Join(",", h)}]"))} "
              + $"results [{string.Join(" ", Final.Results)}] dropped {Final.Dropped} unhandled {Final.Unhandled}"
            : $"results [{string.Join(" ", _results)}]";

    /// <summary>Whether the model gave the same answers to the same operations, and the pipe dropped and failed nothing.</summary>
    protected bool AnswersMatch(BoundedFifoModel model)
        => Final.Dropped == 0
            && Final.Unhandled == 0
            && Final.Results.SequenceEqual(model.Results.Order(StringComparer.Ordinal), StringComparer.Ordinal);

    protected void Record(string result) => _results.Enqueue(result);

    /// <summary>Makes the pipe, its consumers writing <see cref="Handled"/>.</summary>
    protected abstract IPipe<int> Start();

    /// <summary>Called once, before the pipe is completed for the outcome: a held pipe releases its consumers here.</summary>
    protected virtual void BeforeFinish()
    {
    }

    /// <summary>What the failure output says before what was handled, once the outcome is known.</summary>
    protected virtual string Describe() => string.Empty;

    private Outcome Finish()
    {
        var pipe = UnderTest;
        BeforeFinish();
        pipe.TryComplete();
        if (!pipe.Completion.Wait(TestTimeouts.Default))
        {
            throw new TimeoutException("The pipe did not finish once completed and its consumers free.");
        }

        return new Outcome(
            [.. Handled.Select(h => h.ToList())],
            [.. _results.Order(StringComparer.Ordinal)],
            pipe.DroppedCount,
            pipe.UnhandledCount);
    }

    protected sealed record Outcome(List<int>[] Handled, List<string> Results, long Dropped, long Unhandled);
}
