using System.Threading.Tasks.Sources;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// A one-shot <see cref="IValueTaskSource{TResult}"/>: the only allocation of an <c>Ask</c> without a timeout or a
/// cancellable token (a timeout adds a timer, a token a registration). Continuations run asynchronously, so a caller's
/// code never runs inside the replying actor's turn.
/// </summary>
internal sealed class AskPromise<TReply> : AskPromise, IValueTaskSource<TReply>
{
    private ManualResetValueTaskSourceCore<TReply> _core = new() { RunContinuationsAsynchronously = true };
    private int _completed;                         // 0 → 1 once (Interlocked) by whoever completes the promise
    private ITimer? _timeout;                       // set by Arm; released by whoever completes, or by Arm if that came first
    private CancellationTokenRegistration _cancel;  // likewise (a torn read by a racing completer only fails to unregister; Arm then does)

    public override Type ReplyType => typeof(TReply);

    public ValueTask<TReply> Task => new(this, _core.Version);

    /// <summary>Arms the timeout and the cancellation; call before the request can reach the actor.</summary>
    /// <remarks>
    /// The timer may fire (or the token be cancelled) before this returns, and the completer then releases only what was
    /// stored by then. So arming stores each, then looks at the flag: a store before a full fence, a read after it, against
    /// the completer's flag set by an Interlocked exchange before it reads the fields. Either the completer sees the field and
    /// releases it, or this sees the flag and does; releasing twice is harmless.
    /// </remarks>
    public void Arm(TimeProvider time, TimeSpan timeout, CancellationToken cancellationToken)
    {
        if (cancellationToken.CanBeCanceled)
        {
            _cancel = cancellationToken.UnsafeRegister(
                static (state, token) => ((AskPromise<TReply>)state!).TryFail(new OperationCanceledException(token)),
                this);
        }

        if (timeout != Timeout.InfiniteTimeSpan)
        {
            _timeout = time.CreateTimer(
                static state =>
                {
                    var self = (AskPromise<TReply>)state!;
                    self.TryFail(new TimeoutException("The actor did not reply within the Ask's timeout."));
                },
                this,
                timeout,
                Timeout.InfiniteTimeSpan);
        }

        Interlocked.MemoryBarrier();
        if (Volatile.Read(ref _completed) != 0)
        {
            Release(); // completed while arming: what the completer could not see yet is released here
        }
    }

    public bool TrySetResult(TReply reply)
    {
        if (!TryClaim())
        {
            return false;
        }

        _core.SetResult(reply);
        return true;
    }

    public override bool TryFail(Exception exception)
    {
        if (!TryClaim())
        {
            return false;
        }

        _core.SetException(exception);
        return true;
    }

    public TReply GetResult(short token) => _core.GetResult(token);

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);

    private bool TryClaim()
    {
        if (Interlocked.Exchange(ref _completed, 1) != 0)
        {
            return false;
        }

        Release();
        return true;
    }

    /// <summary>Releases the timer and the token registration. Neither waits: Unregister does not wait for a running callback,
    /// and a timer's Dispose does not wait either.</summary>
    private void Release()
    {
        Volatile.Read(ref _timeout)?.Dispose();
        _cancel.Unregister();
    }
}
