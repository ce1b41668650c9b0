using System.Diagnostics.CodeAnalysis;
using NATS.Client.Core;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// Starts the two sides of a pipe over NATS, usually in different processes: a <see cref="NatsPipeProducer{T}"/> and a
/// <see cref="NatsPipeConsumer{T}"/> given the same <see cref="NatsPipeOptions"/> (subject and mode). See
/// <see cref="NatsDelivery"/> for what each mode promises.
/// </summary>
public static class NatsPipe
{
    /// <summary>
    /// Connects (if the connection is not yet connected), sets up the stream for JetStream (creating it, or updating it to
    /// these options), and returns a producer.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="connection">The connection to publish on; the caller's, left open by the producer.</param>
    /// <param name="options">The pipe's options; the same as its consumers'.</param>
    /// <param name="serializer">Writes a message; by default the connection's serializer for <typeparamref name="T"/>
    /// (<c>byte[]</c>, <c>ReadOnlySequence&lt;byte&gt;</c>, strings and primitives need none of their own).</param>
    /// <param name="cancellationToken">Cancels the start.</param>
    /// <exception cref="ArgumentNullException"><paramref name="connection"/> or <paramref name="options"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The options are not valid.</exception>
    /// <exception cref="NatsPipeException">No server answered within <see cref="NatsPipeOptions.ServerTimeout"/>, or it refused the stream.</exception>
    public static Task<NatsPipeProducer<T>> StartProducerAsync<T>(NatsConnection connection, NatsPipeOptions options, INatsSerialize<T>? serializer = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(connection);
        ArgumentNullException.ThrowIfNull(options);
        options.Validate(nameof(options), consumer: false);
        return NatsPipeProducer<T>.StartAsync(connection, options, serializer, cancellationToken);
    }

    /// <summary>
    /// Connects (if the connection is not yet connected), subscribes (Core) or sets up the stream and the group's durable
    /// consumer (JetStream), and starts handling messages. When it returns, the subscription is in place at the server.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="connection">The connection to consume on; the caller's, left open by the consumer.</param>
    /// <param name="options">The pipe's options; the same as its producers'.</param>
    /// <param name="handler">Runs for each message, one at a time; its token is cancelled when the consumer stops.</param>
    /// <param name="deserializer">Reads a message; by default the connection's deserializer for <typeparamref name="T"/>.</param>
    /// <param name="cancellationToken">Cancels the start.</param>
    /// <exception cref="ArgumentNullException"><paramref name="connection"/>, <paramref name="options"/> or <paramref name="handler"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The options are not valid.</exception>
    /// <exception cref="NatsPipeException">No server answered within <see cref="NatsPipeOptions.ServerTimeout"/>, or it refused the stream or the consumer.</exception>
    [SuppressMessage("ApiDesign", "RS0026", Justification = "New API: the two overloads differ in the handler's delegate type, which no call can confuse.")]
    public static Task<NatsPipeConsumer<T>> StartConsumerAsync<T>(NatsConnection connection, NatsPipeOptions options, Func<T, CancellationToken, ValueTask> handler, INatsDeserialize<T>? deserializer = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(connection);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(handler);
        options.Validate(nameof(options), consumer: true);
        return NatsPipeConsumer<T>.StartAsync(connection, options, handler, deserializer, cancellationToken);
    }

    /// <summary>Starts a consumer whose handler returns nothing.</summary>
    /// <inheritdoc cref="StartConsumerAsync{T}(NatsConnection, NatsPipeOptions, Func{T, CancellationToken, ValueTask}, INatsDeserialize{T}?, CancellationToken)"/>
    [SuppressMessage("ApiDesign", "RS0026", Justification = "New API: the two overloads differ in the handler's delegate type, which no call can confuse.")]
    public static Task<NatsPipeConsumer<T>> StartConsumerAsync<T>(NatsConnection connection, NatsPipeOptions options, Action<T> handler, INatsDeserialize<T>? deserializer = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(handler);
        return StartConsumerAsync<T>(
            connection,
            options,
            (message, _) =>
            {
                handler(message);
                return default;
            },
            deserializer,
            cancellationToken);
    }
}
