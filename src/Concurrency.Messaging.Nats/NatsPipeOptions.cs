using System.Text.RegularExpressions;

namespace Concurrency.Messaging.Nats;

/// <summary>What a pipe over NATS promises; chosen explicitly, as the two differ in every guarantee.</summary>
public enum NatsDelivery
{
    /// <summary>
    /// Core NATS: at most once, nothing resent, nothing stored. A message the server cannot deliver (no subscriber yet, a
    /// consumer the server cut off as slow, a connection lost) is gone, and the consumer finds it from the gap in its
    /// producer's sequence numbers and reports it (<see cref="NatsPipeOptions.LossReported"/>, <see cref="NatsPipeCounts.Lost"/>).
    /// </summary>
    Core = 1,

    /// <summary>
    /// JetStream: every message stored in a file-backed stream before the producer counts it sent; published with a
    /// message id (its producer and sequence number) and resent under that id until the server confirms it; consumed by a
    /// durable pull consumer that acknowledges after the handler ran. At least once from the server, handed to the
    /// handler once per consumer while that consumer lives (see <see cref="NatsPipeCounts.PossibleRepeats"/>).
    /// </summary>
    JetStream = 2,
}

/// <summary>Options for <see cref="NatsPipeProducer{T}"/> and <see cref="NatsPipeConsumer{T}"/>; both sides use the same.</summary>
public sealed partial record NatsPipeOptions
{
    /// <summary>The default of <see cref="PublishWindow"/>.</summary>
    public const int DefaultPublishWindow = 256;

    /// <summary>
    /// Gets the subject the messages travel on: tokens of letters, digits, <c>-</c> and <c>_</c> separated by dots, no
    /// wildcards. End markers travel on the subject with <c>._end</c> appended.
    /// </summary>
    public required string Subject { get; init; }

    /// <summary>Gets what the pipe promises: <see cref="NatsDelivery.Core"/> or <see cref="NatsDelivery.JetStream"/>.</summary>
    public required NatsDelivery Delivery { get; init; }

    /// <summary>
    /// Gets the consumer's group. Consumers with the same group share the work, each message going to one of them;
    /// consumers in different groups each get every message (broadcast). Core: the queue group, or <see langword="null"/>
    /// (the default) for a subscription of the consumer's own. JetStream: required, the durable consumer's name, which
    /// keeps the group's place in the stream across restarts.
    /// </summary>
    public string? Group { get; init; }

    /// <summary>
    /// Gets how many producers the consumer waits for: its <see cref="NatsPipeConsumer{T}.Completion"/> finishes once
    /// that many producers' end markers have arrived and everything before them was handled (or, Core, found missing).
    /// JetStream counts the markers stored after the consumer started and those of producers whose messages it handled
    /// (docs/nats.md). <see langword="null"/> (the default): the consumer runs until it is stopped.
    /// </summary>
    public int? ExpectedProducers { get; init; }

    /// <summary>Gets the JetStream stream's name; by default the subject in capitals with dots as underscores.</summary>
    public string? Stream { get; init; }

    /// <summary>
    /// Gets how many JetStream publishes may wait for the server's confirmation at once (default
    /// <see cref="DefaultPublishWindow"/>): <see cref="NatsPipeProducer{T}.PostAsync"/> waits while the window is full.
    /// </summary>
    public int PublishWindow { get; init; } = DefaultPublishWindow;

    /// <summary>
    /// Gets how long a JetStream producer keeps resending a message the server has not confirmed (the server gone, a
    /// reconnect) before it gives up and faults (default one minute; shorter than <see cref="DuplicateWindow"/>, so that
    /// the server still drops a resend it had stored). Also bounds the wait for the server at start.
    /// </summary>
    public TimeSpan ServerTimeout { get; init; } = TimeSpan.FromMinutes(1);

    /// <summary>
    /// Gets the stream's de-duplication window when this side creates the stream (default two minutes): a resend within
    /// it under the same message id is dropped by the server.
    /// </summary>
    public TimeSpan DuplicateWindow { get; init; } = TimeSpan.FromMinutes(2);

    /// <summary>
    /// Gets the most bytes the stream keeps when this side creates it (default 1 GiB). A full stream refuses new messages
    /// (the producer faults with the server's error) rather than discarding old ones no consumer may have read.
    /// </summary>
    public long StreamMaxBytes { get; init; } = 1L << 30;

    /// <summary>
    /// Gets how long the JetStream server waits for a consumer's acknowledgement before it delivers the message again
    /// (default 30 seconds).
    /// </summary>
    public TimeSpan AckWait { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>Gets how many JetStream messages may be delivered to the group and not yet acknowledged (default 1,000).</summary>
    public int MaxAckPending { get; init; } = 1000;

    /// <summary>
    /// Gets how many sequence numbers above each producer's handled prefix a JetStream consumer remembers, to hand a
    /// repeat over only once (default 65,536, 8 KiB per producer; rounded up to a power of two).
    /// </summary>
    public int RepeatWindow { get; init; } = 1 << 16;

    /// <summary>
    /// Gets how many producers a consumer keeps track of (default 10,000): messages from further producers are refused,
    /// counted in <see cref="NatsPipeCounts.Refused"/>, and (JetStream) given back to the group unacknowledged, so a
    /// consumer's memory stays bounded whoever publishes on the subject.
    /// </summary>
    public int MaxProducers { get; init; } = 10_000;

    /// <summary>
    /// Gets what a consumer calls, on its loop, with each run of messages it finds missing (<see cref="NatsDelivery.Core"/>),
    /// as it finds them. It must not block; an exception from it faults the consumer.
    /// </summary>
    public Action<NatsLoss>? LossReported { get; init; }

    /// <summary>The stream this pipe uses.</summary>
    internal string StreamName => Stream ?? Subject.Replace('.', '_').ToUpperInvariant();

    /// <summary>Throws <see cref="ArgumentException"/> for settings no pipe can run with.</summary>
    internal void Validate(string paramName, bool consumer)
    {
        if (string.IsNullOrEmpty(Subject) || !SubjectPattern().IsMatch(Subject) || Subject.EndsWith("._end", StringComparison.Ordinal))
        {
            throw new ArgumentException($"The subject '{Subject}' is not a plain NATS subject (tokens of letters, digits, '-' and '_' separated by dots; no wildcards; not ending in '._end').", paramName);
        }

        if (Delivery is not (NatsDelivery.Core or NatsDelivery.JetStream))
        {
            throw new ArgumentException($"Delivery must be chosen: {nameof(NatsDelivery.Core)} or {nameof(NatsDelivery.JetStream)}.", paramName);
        }

        if (Group is not null && !TokenPattern().IsMatch(Group))
        {
            throw new ArgumentException($"The group '{Group}' is not one token of letters, digits, '-' and '_'.", paramName);
        }

        if (consumer && Delivery == NatsDelivery.JetStream && Group is null)
        {
            throw new ArgumentException("A JetStream consumer needs a Group: its durable consumer's name.", paramName);
        }

        if (Stream is not null && !TokenPattern().IsMatch(Stream))
        {
            throw new ArgumentException($"The stream name '{Stream}' is not one token of letters, digits, '-' and '_'.", paramName);
        }

        Positive(ExpectedProducers ?? 1, nameof(ExpectedProducers));
        Positive(PublishWindow, nameof(PublishWindow));
        Positive(MaxAckPending, nameof(MaxAckPending));
        Positive(MaxProducers, nameof(MaxProducers));
        Positive(StreamMaxBytes, nameof(StreamMaxBytes));
        if (RepeatWindow is < 64 or > 1 << 24)
        {
            throw new ArgumentException($"RepeatWindow must be between 64 and 16,777,216; it was {RepeatWindow}.", paramName);
        }

        if (ServerTimeout <= TimeSpan.Zero || AckWait <= TimeSpan.Zero || DuplicateWindow <= TimeSpan.Zero)
        {
            throw new ArgumentException("ServerTimeout, AckWait and DuplicateWindow must be positive.", paramName);
        }

        if (Delivery == NatsDelivery.JetStream && ServerTimeout >= DuplicateWindow)
        {
            // A resend after the window closed would be stored a second time.
            throw new ArgumentException($"ServerTimeout ({ServerTimeout}) must be shorter than DuplicateWindow ({DuplicateWindow}): a message is resent for at most ServerTimeout, and the server drops a duplicate only within its window.", paramName);
        }

        void Positive(long value, string name)
        {
            if (value <= 0)
            {
                throw new ArgumentException($"{name} must be positive; it was {value}.", paramName);
            }
        }
    }

    [GeneratedRegex(@"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")]
    private static partial Regex SubjectPattern();

    [GeneratedRegex(@"^[A-Za-z0-9_-]+$")]
    private static partial Regex TokenPattern();
}
