using Concurrency.Messaging.Connectors;
using NATS.Client.Core;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// The Subject connector (<see cref="IConnector{T}"/>) with NATS between its two sides: the process that produces uses
/// <see cref="IConnector{T}.Input"/>, the processes that consume subscribe to <see cref="IConnector{T}.Output"/>, each
/// knowing only the subject and the mode.
/// </summary>
/// <remarks>
/// <para>
/// What carries over from the in-process connector: concurrent calls on <see cref="IConnector{T}.Input"/> (serialized,
/// so subscribers see one order), OnCompleted (as the producer's end marker, which completes subscribers told to expect
/// it), and subscribers that never see each other. What does not: OnError (it stops the producer without an end marker,
/// see <see cref="NatsObservable.AsObserver{T}"/>); every subscriber getting every message under JetStream (the
/// subscribers of one connector share its <see cref="NatsPipeOptions.Group"/>, so they share the work: a subscriber that
/// wants everything observes with a group of its own, <see cref="NatsObservable.Observe{T}"/>); and the connector's
/// replay for late subscribers (<see cref="ConnectorOptions.Replay"/>). Core replays nothing: a subscriber gets what is published after the server
/// has its subscription. JetStream keeps the stream: a subscriber in a new <see cref="NatsPipeOptions.Group"/> starts at
/// the stream's first message (every message still stored, up to <see cref="NatsPipeOptions.StreamMaxBytes"/>: replay of
/// everything, not of the last N), and one in an existing group where that group left off.
/// </para>
/// </remarks>
public static class NatsConnector
{
    /// <summary>
    /// Starts the producing side (a <see cref="NatsPipeProducer{T}"/> on <paramref name="connection"/>) and returns a
    /// connector whose <see cref="IConnector{T}.Input"/> posts to it and whose <see cref="IConnector{T}.Output"/> subscribes
    /// on the same connection (<see cref="NatsObservable.Observe{T}"/>). A process that only consumes uses
    /// <see cref="NatsObservable.Observe{T}"/> alone.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="connection">The connection; the caller's, left open.</param>
    /// <param name="options">The pipe's options (a JetStream <see cref="NatsPipeOptions.Group"/> is needed for <see cref="IConnector{T}.Output"/>).</param>
    /// <param name="serializer">Writes and reads a message; by default the connection's for <typeparamref name="T"/>.</param>
    /// <param name="cancellationToken">Cancels the start.</param>
    /// <exception cref="ArgumentNullException"><paramref name="connection"/> or <paramref name="options"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The options are not valid.</exception>
    /// <exception cref="NatsPipeException">No server answered within <see cref="NatsPipeOptions.ServerTimeout"/>, or it refused the stream.</exception>
    public static async Task<IConnector<T>> StartAsync<T>(NatsConnection connection, NatsPipeOptions options, INatsSerializer<T>? serializer = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(connection);
        ArgumentNullException.ThrowIfNull(options);
        options.Validate(nameof(options), consumer: true);
        var producer = await NatsPipe.StartProducerAsync(connection, options, serializer, cancellationToken).ConfigureAwait(false);
        return new Connector<T>(producer, NatsObservable.Observe(connection, options, serializer));
    }

    private sealed class Connector<T>(NatsPipeProducer<T> producer, IObservable<T> output) : IConnector<T>
    {
        private readonly IObservable<T> _output = output;
        private readonly Lock _gate = new();
        private readonly List<IDisposable> _subscriptions = [];
        private bool _disposed;

        public IObserver<T> Input { get; } = new Serialized(producer.AsObserver());

        public IObservable<T> Output => new Counted(this);

        public int SubscriberCount
        {
            get
            {
                lock (_gate)
                {
                    return _subscriptions.Count;
                }
            }
        }

        public void Dispose()
        {
            List<IDisposable> subscriptions;
            lock (_gate)
            {
                if (_disposed)
                {
                    return;
                }

                _disposed = true;
                subscriptions = [.. _subscriptions];
                _subscriptions.Clear();
            }

            foreach (var subscription in subscriptions)
            {
                subscription.Dispose();
            }

            producer.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }

        private void Remove(IDisposable subscription)
        {
            lock (_gate)
            {
                _subscriptions.Remove(subscription);
            }
        }

        /// <summary>The output, counting its subscriptions for <see cref="SubscriberCount"/>.</summary>
        private sealed class Counted(Connector<T> connector) : IObservable<T>
        {
            public IDisposable Subscribe(IObserver<T> observer)
            {
                ArgumentNullException.ThrowIfNull(observer);
                var subscription = new Tracked(connector);
                lock (connector._gate)
                {
                    // Added before it starts, under the gate the disposal takes: a connector disposed meanwhile either
                    // refuses it here or disposes it with the rest.
                    ObjectDisposedException.ThrowIf(connector._disposed, connector);
                    connector._subscriptions.Add(subscription);
                }

                subscription.Start(connector._output, observer);
                return subscription;
            }
        }

        /// <summary>The input, one call at a time: a producer is one sequence.</summary>
        private sealed class Serialized(IObserver<T> inner) : IObserver<T>
        {
            private readonly Lock _gate = new();

            public void OnNext(T value)
            {
                lock (_gate)
                {
                    inner.OnNext(value);
                }
            }

            public void OnCompleted()
            {
                lock (_gate)
                {
                    inner.OnCompleted();
                }
            }

            public void OnError(Exception error)
            {
                lock (_gate)
                {
                    inner.OnError(error);
                }
            }
        }

        private sealed class Tracked(Connector<T> connector) : IDisposable
        {
            private readonly Lock _gate = new();
            private IDisposable? _inner;
            private bool _disposed;

            public void Start(IObservable<T> output, IObserver<T> observer)
            {
                var inner = output.Subscribe(observer);
                lock (_gate)
                {
                    if (!_disposed)
                    {
                        _inner = inner;
                        return;
                    }
                }

                inner.Dispose(); // disposed while it was starting
            }

            public void Dispose()
            {
                IDisposable? inner;
                lock (_gate)
                {
                    _disposed = true;
                    (inner, _inner) = (_inner, null);
                }

                connector.Remove(this);
                inner?.Dispose();
            }
        }
    }
}
