using NATS.Client.Core;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// Rx's two halves over NATS: an <see cref="IObservable{T}"/> whose every subscription is a <see cref="NatsPipeConsumer{T}"/>,
/// and an <see cref="IObserver{T}"/> that posts to a <see cref="NatsPipeProducer{T}"/>. Together they carry an Rx stream
/// from one process to another with the guarantees of the mode chosen (<see cref="NatsDelivery"/>).
/// </summary>
public static class NatsObservable
{
    /// <summary>
    /// An observable of the messages on the pipe <paramref name="options"/> names. Each subscription starts a consumer of
    /// its own (in <see cref="NatsPipeOptions.Group"/>): OnNext for each message, one at a time, on the consumer's loop;
    /// OnCompleted when the consumer completes (<see cref="NatsPipeOptions.ExpectedProducers"/> ended); OnError if it
    /// could not start or faulted (an OnNext that throws faults it, with a <see cref="Pipes.MessageHandlerException"/>).
    /// Disposing the subscription stops its consumer; nothing reaches the observer after the disposal returned.
    /// </summary>
    /// <remarks>
    /// The consumer starts in the background after <see cref="IObservable{T}.Subscribe"/> returns. Core: what is published
    /// before the server has the subscription is not delivered (and, once a later message of the same producer arrives,
    /// reported lost). JetStream: a group reads from where it left off, a new group from the stream's start.
    /// </remarks>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="connection">The connection every subscription consumes on; the caller's, left open.</param>
    /// <param name="options">The pipe's options, checked now.</param>
    /// <param name="deserializer">Reads a message; by default the connection's deserializer for <typeparamref name="T"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="connection"/> or <paramref name="options"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The options are not valid for a consumer.</exception>
    public static IObservable<T> Observe<T>(NatsConnection connection, NatsPipeOptions options, INatsDeserialize<T>? deserializer = null)
    {
        ArgumentNullException.ThrowIfNull(connection);
        ArgumentNullException.ThrowIfNull(options);
        options.Validate(nameof(options), consumer: true);
        return new Observable<T>(connection, options, deserializer);
    }

    /// <summary>
    /// An observer that posts each OnNext to <paramref name="producer"/> (waiting, on the calling thread, while a JetStream
    /// window is full) and completes it on OnCompleted (waiting for the server's confirmations and the end marker). The
    /// end marker carries no error: OnError stops the producer without one, so its consumers do not complete by it.
    /// Calls after OnCompleted or OnError are ignored, as the Rx grammar asks.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="producer">The producer; the observer's OnCompleted and OnError end it.</param>
    /// <exception cref="ArgumentNullException"><paramref name="producer"/> is <see langword="null"/>.</exception>
    public static IObserver<T> AsObserver<T>(this NatsPipeProducer<T> producer)
    {
        ArgumentNullException.ThrowIfNull(producer);
        return new Publisher<T>(producer);
    }

    private sealed class Observable<T>(NatsConnection connection, NatsPipeOptions options, INatsDeserialize<T>? deserializer) : IObservable<T>
    {
        public IDisposable Subscribe(IObserver<T> observer)
        {
            ArgumentNullException.ThrowIfNull(observer);
            var subscription = new Subscription<T>(observer);
            subscription.Start(connection, options, deserializer);
            return subscription;
        }
    }

    /// <summary>One subscription: its consumer, and the gate that keeps the observer silent once disposed.</summary>
    /// <remarks>
    /// The gate is held around each notification and by the disposal: once <see cref="Dispose"/> has returned nothing
    /// reaches the observer, and a message the consumer delivers after it is refused (the handler throws), so that
    /// JetStream does not acknowledge a message no observer saw: it stays for the group.
    /// </remarks>
    private sealed class Subscription<T>(IObserver<T> observer) : IDisposable
    {
        private readonly Lock _gate = new();
        private readonly CancellationTokenSource _disposed = new();
        private Task<NatsPipeConsumer<T>>? _starting;
        private bool _done; // guarded by _gate: a terminal notification was sent or the subscription disposed

        public void Start(NatsConnection connection, NatsPipeOptions options, INatsDeserialize<T>? deserializer)
        {
            _starting = NatsPipe.StartConsumerAsync<T>(connection, options, Deliver, deserializer, _disposed.Token);
            _ = Watch(_starting);
        }

        public void Dispose()
        {
            lock (_gate)
            {
                if (_done)
                {
                    return;
                }

                _done = true;
            }

            _disposed.Cancel();
            _ = Stop(_starting);
        }

        private void Deliver(T message)
        {
            lock (_gate)
            {
                if (_done)
                {
                    throw new OperationCanceledException("The subscription was disposed.");
                }

                observer.OnNext(message);
            }
        }

        private static async Task Stop(Task<NatsPipeConsumer<T>>? starting)
        {
            try
            {
                if (starting is not null)
                {
                    await (await starting.ConfigureAwait(false)).DisposeAsync().ConfigureAwait(false);
                }
            }
#pragma warning disable CA1031 // a start that failed or was cancelled by this disposal leaves nothing to stop
            catch (Exception)
#pragma warning restore CA1031
            {
            }
        }

        private async Task Watch(Task<NatsPipeConsumer<T>> starting)
        {
            Exception? error = null;
            try
            {
                var consumer = await starting.ConfigureAwait(false);
                await consumer.Completion.ConfigureAwait(false);
            }
#pragma warning disable CA1031 // whatever ends the consumer is the observer's OnError (unless the subscription was disposed)
            catch (Exception e)
#pragma warning restore CA1031
            {
                error = e;
            }

            lock (_gate)
            {
                if (_done)
                {
                    return; // disposed meanwhile: nothing more reaches the observer
                }

                _done = true;
                if (error is null)
                {
                    observer.OnCompleted();
                }
                else
                {
                    observer.OnError(error);
                }
            }
        }
    }

    private sealed class Publisher<T>(NatsPipeProducer<T> producer) : IObserver<T>
    {
        private int _done;

        public void OnNext(T value)
        {
            if (Volatile.Read(ref _done) != 0)
            {
                return;
            }

            var post = producer.PostAsync(value);
            if (!post.IsCompletedSuccessfully)
            {
                post.AsTask().GetAwaiter().GetResult(); // Rx has no other back-pressure: the caller's thread waits for room
            }
        }

        public void OnCompleted()
        {
            if (Interlocked.Exchange(ref _done, 1) == 0)
            {
                producer.CompleteAsync().GetAwaiter().GetResult();
            }
        }

        public void OnError(Exception error)
        {
            if (Interlocked.Exchange(ref _done, 1) == 0)
            {
                producer.DisposeAsync().AsTask().GetAwaiter().GetResult();
            }
        }
    }
}
