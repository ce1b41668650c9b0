using System.Reflection;
using System.Threading.Channels;

namespace Concurrency.Messaging.Tests.Regressions;

/// <summary>
/// Opens, on purpose, the window behind dotnet/runtime#132094 and #131141 in a raw runtime bounded channel.
/// </summary>
/// <remarks>
/// <para>
/// On .NET 10 (verified against the shipped 10.0.12 IL) <c>BoundedChannel</c>'s <c>ReadAsync(token)</c>,
/// <c>WaitToReadAsync(token)</c>, <c>WriteAsync(item, token)</c> and <c>WaitToWriteAsync(token)</c> check
/// <c>token.IsCancellationRequested</c> before taking the channel's lock; inside the lock they construct an operation whose
/// constructor calls <c>token.UnsafeRegister(callback, this)</c> and stores the returned registration. If the token was
/// cancelled in between, <c>UnsafeRegister</c> runs the callback synchronously, inside the constructor, before the
/// registration is stored: the callback's <c>TrySetCanceled</c> asks <c>_cancellationRegistration.Token.CanBeCanceled</c>,
/// gets <see langword="false"/> from the still-default registration, "reserves" completion without setting the reserved
/// flag, completes the operation as cancelled and queues its removal to the thread pool. The constructor then stores a
/// default registration, so the operation looks non-cancelable for the rest of its life, and it is queued as a live
/// waiter. A writer that dequeues it before the queued removal runs "reserves" it again (non-cancelable: always true) and
/// hands it the item, which nobody will ever read: the loss of #132094. On the waiting-reader and waiting-writer lists the
/// same stale operation is signalled a second time while the queued removal may be unlinking it, which fits the
/// <see cref="NullReferenceException"/>, <see cref="InvalidOperationException"/> and never-woken reader of #131141.
/// </para>
/// <para>
/// The window is a few instructions wide unless the caller waits for the lock, which is why contention makes it likely.
/// <see cref="CancelReadAsyncWhileItWaitsForTheLock"/> widens it deterministically by holding the channel's lock (found by
/// reflection: the runtime locks its private item deque) while the token is cancelled.
/// </para>
/// </remarks>
internal static class BoundedChannelLockWindow
{
    /// <summary>Gets the object a runtime bounded channel locks, or <see langword="null"/> if this runtime's channel has none by that name.</summary>
    public static object? FindLock<T>(Channel<T> channel)
        => channel.GetType().GetField("_items", BindingFlags.NonPublic | BindingFlags.Instance)?.GetValue(channel);

    /// <summary>
    /// One trial: a reader thread calls <c>ReadAsync(token)</c> on an empty bounded channel while this thread holds the channel's
    /// lock, so the reader passes its cancellation check and then waits; the token is cancelled; the lock is released; the
    /// reader, whose read comes back cancelled, immediately writes one item. A correct channel stores that item.
    /// </summary>
    public static LockWindowTrial CancelReadAsyncWhileItWaitsForTheLock()
    {
        var channel = Channel.CreateBounded<int>(new BoundedChannelOptions(16)
        {
            FullMode = BoundedChannelFullMode.Wait,
            AllowSynchronousContinuations = false,
        });
        var gate = FindLock(channel);
        if (gate is null)
        {
            return LockWindowTrial.NotApplicable;
        }

        using var cancel = new CancellationTokenSource();
        ValueTask<int> read = default;
        var wrote = false;
        Exception? fault = null;
        var reader = new Thread(() =>
        {
            try
            {
                read = channel.Reader.ReadAsync(cancel.Token);
                wrote = channel.Writer.TryWrite(42);
            }
            catch (Exception ex)
            {
                fault = ex;
            }
        })
        {
            IsBackground = true,
            Name = "lock-window reader",
        };

        bool waitedForLock;
        Monitor.Enter(gate);
        try
        {
            reader.Start();
            waitedForLock = SpinWait.SpinUntil(() => (reader.ThreadState & ThreadState.WaitSleepJoin) != 0, TimeSpan.FromSeconds(5));
            cancel.Cancel(); // nothing is registered on the token yet, so no callback runs under the lock we hold
        }
        finally
        {
            Monitor.Exit(gate);
        }

        if (!reader.Join(TestTimeouts.Default))
        {
            return LockWindowTrial.Hung;
        }

        if (fault is not null)
        {
            return LockWindowTrial.Faulted;
        }

        if (!waitedForLock || read.IsCompletedSuccessfully || !wrote)
        {
            return LockWindowTrial.NotTriggered;
        }

        // The read came back cancelled and TryWrite said the item was accepted: it must be in the channel.
        return channel.Reader.Count == 1 ? LockWindowTrial.Stored : LockWindowTrial.Lost;
    }
}

internal enum LockWindowTrial
{
    /// <summary>The item written after the cancelled read is in the channel: correct.</summary>
    Stored,

    /// <summary>The writer handed the item to the cancelled read: TryWrite returned true, yet the channel is empty.</summary>
    Lost,

    /// <summary>The reader was not seen waiting for the lock, so the window was not opened; says nothing either way.</summary>
    NotTriggered,

    /// <summary>The reader or writer threw.</summary>
    Faulted,

    /// <summary>The reader thread did not finish.</summary>
    Hung,

    /// <summary>This runtime's bounded channel has no private item deque to lock: the probe does not apply.</summary>
    NotApplicable,
}
