using System.Threading.Tasks.Sources;

namespace Concurrency.Messaging.Tests.Linq;

/// <summary>
/// An asynchronous selector's result that the test completes by hand. The operator's continuation runs inline, on the thread
/// that calls <see cref="SetResult"/>, so when that call returns the operator has already taken the result in (stored it,
/// emitted it or dropped it). <see cref="Awaited"/> finishes once the operator waits for the result; complete it only then,
/// or the operator would pick the result up on a thread of its own.
/// </summary>
internal sealed class HeldResult<T> : IValueTaskSource<T>
{
    private readonly TaskCompletionSource _awaited = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private ManualResetValueTaskSourceCore<T> _core = new() { RunContinuationsAsynchronously = false }; // a mutable struct: not readonly

    public Task Awaited => _awaited.Task;

    public ValueTask<T> AsValueTask() => new(this, _core.Version);

    public void SetResult(T result) => _core.SetResult(result);

    public T GetResult(short token) => _core.GetResult(token);

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags)
    {
        _core.OnCompleted(continuation, state, token, flags);
        _awaited.TrySetResult();
    }
}
