namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// The actual state for CsCheck's <c>SampleParallel</c>: a pipe whose consumers are each held inside their handler on a
/// sentinel message, so that nothing the operations post is consumed until the check releases them. While held, a post's
/// answer depends only on the order of the posts and completions, which is what a sequential model can predict.
/// </summary>
/// <remarks>
/// The pipe starts lazily and the outcome is computed once (see <see cref="PipeActual"/>); the consumers are released
/// first.
/// </remarks>
internal sealed class HeldPipe : PipeActual
{
    private readonly HeldPipeCase _case;
    private readonly ManualResetEventSlim _release = new(false);
    private readonly SemaphoreSlim _held = new(0);
    private readonly Lock _producer = new();

    public HeldPipe(HeldPipeCase @case)
        : base(@case.Consumers)
        => _case = @case;

    public void TryPost(int value)
    {
        var pipe = UnderTest;
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

        Record(OperationResult.Post(value, accepted));
    }

    /// <summary>
    /// Whether the model explains what happened: the same answers to the same operations, every accepted value handled
    /// exactly once (by every consumer, in order, for broadcast or a single consumer; by exactly one consumer, each in
    /// order, for work-sharing), nothing refused handled, nothing dropped or counted unhandled.
    /// </summary>
    public override bool Matches(BoundedFifoModel model)
    {
        if (!AnswersMatch(model))
        {
            return false;
        }

        if (!_case.Sharing)
        {
            return Final.Handled.All(handled => handled.SequenceEqual(model.Accepted));
        }

        return Final.Handled.SelectMany(h => h).Order().SequenceEqual(model.Accepted.Order())
            && Final.Handled.All(handled => IsSubsequence(handled, model.Accepted));
    }

    protected override IPipe<int> Start()
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

    protected override void BeforeFinish() => _release.Set();

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

    private void Handle(int consumer, int value)
    {
        if (value < 0)
        {
            _held.Release();
        }

        _release.Wait(TestTimeouts.Default);
        if (value >= 0)
        {
            Handled[consumer].Add(value);
        }
    }
}
