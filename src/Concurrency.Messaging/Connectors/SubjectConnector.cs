namespace Concurrency.Messaging.Connectors;

/// <summary>
/// A Subject that serializes its producers: every notification, subscription and replay happens under one monitor, so
/// subscribers never see overlapping calls and a late subscriber's replay is exact (no gap, no duplicate).
/// </summary>
internal sealed class SubjectConnector<T>(int replayCount, Action<Exception>? subscriberFaulted)
    : IConnector<T>, IObserver<T>, IObservable<T>
{
    private readonly Lock _gate = new();
    private readonly Queue<T> _replay = new();            // guarded by _gate: the last replayCount messages
    private IObserver<T>[] _subscribers = [];             // guarded by _gate: replaced, never mutated, so a delivery loop can run over a snapshot
    private bool _done;                                   // guarded by _gate
    private Exception? _error;                            // guarded by _gate
    private bool _disposed;                               // guarded by _gate

    public IObserver<T> Input => this;

    public IObservable<T> Output => this;

    public int SubscriberCount => Volatile.Read(ref _subscribers).Length;

    public void OnNext(T value)
    {
        lock (_gate)
        {
            if (_done || _disposed)
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
            ObjectDisposedException.ThrowIf(_disposed, this);
            try
            {
                foreach (var value in _replay)
                {
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

            _subscribers = [.. _subscribers, observer];
            return new Unsubscriber(this, observer);
        }
    }

    public void Dispose()
    {
        lock (_gate)
        {
            _disposed = true;
            _subscribers = [];
            _replay.Clear();
        }
    }

    private void Terminate(Exception? error)
    {
        lock (_gate)
        {
            if (_done || _disposed)
            {
                return;
            }

            _done = true;
            _error = error;
            var subscribers = _subscribers;
            _subscribers = [];
            List<Exception>? faults = null;
            foreach (var subscriber in subscribers)
            {
                try
                {
                    Deliver(subscriber, error);
                }
                catch (Exception ex)
                {
                    (faults ??= []).Add(ex);
                }
            }

            Report(faults);
        }
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
                _subscribers = [.. _subscribers[..index], .. _subscribers[(index + 1)..]];
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
