namespace Concurrency.Messaging.Tests.Linq;

/// <summary>
/// Records what an observer receives and counts Rx grammar violations: overlapping OnNext calls and anything after
/// a terminal notification. <see cref="Terminated"/> finishes on OnError or OnCompleted.
/// </summary>
internal sealed class RecordingObserver<T>(int throwOn = -1, Exception? failure = null, int spinPerMessage = 0) : IObserver<T>
{
    private readonly TaskCompletionSource _terminated = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _inOnNext;
    private int _violations;
    private bool _done;

    public List<T> Values { get; } = [];

    public bool Completed { get; private set; }

    public Exception? Error { get; private set; }

    public int LastThreadId { get; private set; }

    public int GrammarViolations => Volatile.Read(ref _violations);

    public Task Terminated => _terminated.Task;

    /// <summary>
    /// Waits (bounded) for the terminal call, then asserts the grammar the operators keep on a failure: exactly
    /// <paramref name="values"/>, in order, one at a time, then OnError with <paramref name="error"/> and nothing after.
    /// </summary>
    public async Task AssertFailedAfterAsync(IEnumerable<T> values, Exception error)
    {
        await Terminated.DefaultTimeout();

        Assert.Equal(values, Values);
        Assert.Same(error, Error);
        Assert.False(Completed);
        Assert.Equal(0, GrammarViolations);
    }

    public void OnNext(T value)
    {
        if (Interlocked.Increment(ref _inOnNext) != 1 || _done)
        {
            Interlocked.Increment(ref _violations);
        }

        Values.Add(value);
        LastThreadId = Environment.CurrentManagedThreadId;
        Thread.SpinWait(spinPerMessage);
        Interlocked.Decrement(ref _inOnNext);
        if (Values.Count - 1 == throwOn)
        {
            throw failure!;
        }
    }

    public void OnError(Exception error)
    {
        Terminate();
        Error = error;
        _terminated.TrySetResult();
    }

    public void OnCompleted()
    {
        Terminate();
        Completed = true;
        _terminated.TrySetResult();
    }

    private void Terminate()
    {
        if (_done || Volatile.Read(ref _inOnNext) != 0)
        {
            Interlocked.Increment(ref _violations);
        }

        _done = true;
    }
}
