namespace Concurrency.Messaging.Connectors;

/// <summary>
/// A Subject that serializes its producers: every notification, subscription and replay happens under one monitor, so
/// subscribers never see overlapping calls and a late subscriber's replay is exact (no gap, no duplicate).
/// </summary>
/// <remarks>
/// <see cref="Dispose"/> is the one operation that does not take the monitor: a subscriber may be inside a delivery,
/// waiting for the very thread that disposes. It raises <c>_disposed</c> and swaps the subscribers out atomically; a
/// delivery in progress checks the flag before each subscriber, and whoever holds the monitor next clears the replay.
/// </remarks>
internal sealed class SubjectConnector<T>(int replayCount, Action<Exception>? subscriberFaulted)
    : IConnector<T>, IObserver<T>, IObservable<T>
{
    private readonly Lock _gate = new();
    private readonly Queue<T> _replay = new();            // guarded by _gate: the last replayCount messages
    private IObserver<T>[] _subscribers = [];             // replaced, never mutated, so a delivery loop can run over a snapshot;
                                                          // written under _gate (Interlocked) and by Dispose without it
    private bool _done;                                   // guarded by _gate
    private Exception? _error;                            // guarded by _gate
    private int _disposed;                                // 0 → 1 once, by Dispose (Volatile); read anywhere

    public IObserver<T> Input => this;

    public IObservable<T> Output => this;

    public int SubscriberCount => Volatile.Read(ref _subscribers).Length;

    private bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    public void OnNext(T value)
    {
        lock (_gate)
        {
            if (_done || ReleaseIfDisposed())
            {
                return;
            }

            if (replayCount > 0)
            {
                if (_replay.Count == replayCount)
                {
                    _replay.Dequeue();
                }

                _replay.Enqueue(value);
            }

            List<Exception>? faults = null;
            foreach (var subscriber in _subscribers)
            {
                if (IsDisposed)
                {
                    break;
                }

                try
                {
                    subscriber.OnNext(value);
                }
                catch (Exception ex)
                {
                    Remove(subscriber);
                    (faults ??= []).Add(ex);
                }
            }

            ReleaseIfDisposed();
            Report(faults);
        }
    }

    public void OnError(Exception error)
    {
        ArgumentNullException.ThrowIfNull(error);
        Terminate(error);
    }

    public void OnCompleted() => Terminate(null);

    public IDisposable Subscribe(IObserver<T> observer)
    {
        ArgumentNullException.ThrowIfNull(observer);
        lock (_gate)
        {
            try
            {
                return SubscribeUnderGate(observer);
            }
            finally
            {
                ReleaseIfDisposed(); // a replayed subscriber may have disposed the connector
            }
        }
    }

    /// <summary>Never waits for the monitor: a delivery in progress stops before its next subscriber.</summary>
    public void Dispose()
    {
        Volatile.Write(ref _disposed, 1);
        Interlocked.Exchange(ref _subscribers, []);

        // Clear the replay now if nobody holds the monitor; otherwise its holder (this thread too, when a subscriber
        // disposes from inside a delivery or a replay) does on the way out.
        if (!_gate.IsHeldByCurrentThread && _gate.TryEnter())
        {
            try
            {
                ReleaseIfDisposed();
            }
            finally
            {
                _gate.Exit();
            }
        }
    }

    private void Terminate(Exception? error)
    {
        lock (_gate)
        {
            if (_done || ReleaseIfDisposed())
            {
                return;
            }

            _done = true;
            _error = error;
            var subscribers = _subscribers;
            Publish([]);
            List<Exception>? faults = null;
            foreach (var subscriber in subscribers)
            {
                if (IsDisposed)
                {
                    break;
                }

                try
                {
                    Deliver(subscriber, error);
                }
                catch (Exception ex)
                {
                    (faults ??= []).Add(ex);
                }
            }

            ReleaseIfDisposed();
            Report(faults);
        }
    }

    private Unsubscriber SubscribeUnderGate(IObserver<T> observer)
    {
        ObjectDisposedException.ThrowIf(IsDisposed, this);
        try
        {
            foreach (var value in _replay)
            {
                if (IsDisposed)
                {
                    return Unsubscriber.None;
                }

                observer.OnNext(value);
            }

            if (_done)
            {
                Deliver(observer, _error);
                return Unsubscriber.None;
            }
        }
        catch (Exception ex)
        {
            // The same rule as a live message: a subscriber that throws is not (or no longer) subscribed.
            Report([ex]);
            return Unsubscriber.None;
        }

        // Disposed during the replay: as if disposed just after subscribing, the subscription is dropped silently.
        return Publish([.. _subscribers, observer]) ? new Unsubscriber(this, observer) : Unsubscriber.None;
    }

    private static void Deliver(IObserver<T> observer, Exception? error)
    {
        if (error is null)
        {
            observer.OnCompleted();
        }
        else
        {
            observer.OnError(error);
        }
    }

    /// <summary>
    /// Under the gate: replaces the subscribers. Dispose swaps them without the gate, so a replacement that lands after
    /// Dispose's swap is undone (Dispose raises its flag before swapping, and the exchange here is a full fence).
    /// </summary>
    /// <returns><see langword="false"/> if the connector has been disposed.</returns>
    private bool Publish(IObserver<T>[] subscribers)
    {
        Interlocked.Exchange(ref _subscribers, subscribers);
        if (!IsDisposed)
        {
            return true;
        }

        Interlocked.Exchange(ref _subscribers, []);
        return false;
    }

    /// <summary>Under the gate: once disposed, drops the replayed messages (Dispose itself may not take the gate).</summary>
    /// <returns>Whether the connector has been disposed.</returns>
    private bool ReleaseIfDisposed()
    {
        if (!IsDisposed)
        {
            return false;
        }

        _replay.Clear();
        return true;
    }

    // Called after the delivery loop, so a callback that throws cannot cost the other subscribers this notification.
    private void Report(List<Exception>? faults)
    {
        if (faults is null || subscriberFaulted is null)
        {
            return;
        }

        foreach (var fault in faults)
        {
            subscriberFaulted(fault);
        }
    }

    private void Remove(IObserver<T> observer)
    {
        lock (_gate)
        {
            var index = Array.IndexOf(_subscribers, observer);
            if (index >= 0)
            {
                Publish([.. _subscribers[..index], .. _subscribers[(index + 1)..]]);
            }
        }
    }

    private sealed class Unsubscriber(SubjectConnector<T>? connector, IObserver<T>? observer) : IDisposable
    {
        public static readonly Unsubscriber None = new(null, null);

        private SubjectConnector<T>? _connector = connector; // taken once (Interlocked), so Dispose is idempotent

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _connector, null) is { } owner)
            {
                owner.Remove(observer!);
            }
        }
    }
}
