namespace Concurrency.Messaging.Nats;

/// <summary>
/// What a <see cref="NatsPipeConsumer{T}"/> has seen, in all and per producer. Final once its
/// <see cref="NatsPipeConsumer{T}.Completion"/> has finished; a snapshot before that.
/// </summary>
/// <remarks>
/// Consumers that share the work (one <see cref="NatsPipeOptions.Group"/>) each see some of every producer's messages:
/// <see cref="Combine"/> their counts to reconcile, so that a producer's posted count is compared with what the whole
/// group handled.
/// </remarks>
public sealed record NatsPipeCounts
{
    /// <summary>Gets the messages handed to the handler (once each, as far as this consumer could tell: see <see cref="PossibleRepeats"/>).</summary>
    public long Handled { get; init; }

    /// <summary>
    /// Gets the messages found missing (<see cref="NatsDelivery.Core"/>): gaps in a producer's sequence numbers and, once its
    /// end marker arrived, what it posted beyond the last one seen. For consumers that share the work, only
    /// <see cref="Combine"/> can tell; a single consumer's figure is 0 then.
    /// </summary>
    public long Lost { get; init; }

    /// <summary>Gets the messages that arrived again after they were handled and were not handed over again (<see cref="NatsDelivery.JetStream"/>).</summary>
    public long Repeats { get; init; }

    /// <summary>
    /// Gets the messages handed to the handler although they may have been handled before (<see cref="NatsDelivery.JetStream"/>):
    /// redelivered ones this consumer had not seen (another consumer, or this one before a restart, may have handled them
    /// and not acknowledged them), ones that arrived after a later message of their producer (a redelivery the server no
    /// longer counts as one after a crash, or a resend stored late), and ones older than the consumer's window.
    /// </summary>
    public long PossibleRepeats { get; init; }

    /// <summary>Gets the messages that were not this package's envelope, or that the serializer could not read: never handed to the handler.</summary>
    public long Malformed { get; init; }

    /// <summary>
    /// Gets the messages from producers beyond <see cref="NatsPipeOptions.MaxProducers"/>: never handed to this consumer's
    /// handler (JetStream: given back to the group unacknowledged).
    /// </summary>
    public long Refused { get; init; }

    /// <summary>
    /// Gets the messages this consumer received and did not hand over because it stopped or its handler threw (the one
    /// that threw included). Core: gone. JetStream: left unacknowledged, so the server delivers them again to the group.
    /// </summary>
    public long Unhandled { get; init; }

    /// <summary>Gets each producer seen, in the order first seen.</summary>
    public IReadOnlyList<NatsProducerCounts> Producers { get; init; } = [];

    /// <summary>
    /// Reconciles the counts of consumers that shared the work: handled and everything else summed, and per producer the
    /// handled sum compared with its posted count, which gives <see cref="Lost"/> for the group.
    /// </summary>
    /// <param name="counts">Every consumer's final counts.</param>
    /// <exception cref="ArgumentNullException"><paramref name="counts"/> is <see langword="null"/>.</exception>
    public static NatsPipeCounts Combine(IEnumerable<NatsPipeCounts> counts)
    {
        ArgumentNullException.ThrowIfNull(counts);
        var all = counts.ToList();
        var producers = new Dictionary<string, (long? Posted, long Handled)>();
        var order = new List<string>();
        foreach (var producer in all.SelectMany(c => c.Producers))
        {
            if (!producers.TryGetValue(producer.Producer, out var sum))
            {
                order.Add(producer.Producer);
                sum = (null, 0);
            }

            producers[producer.Producer] = (sum.Posted ?? producer.Posted, sum.Handled + producer.Handled);
        }

        var combined = order.Select(p => new NatsProducerCounts(p, producers[p].Posted, producers[p].Handled)).ToList();
        return new NatsPipeCounts
        {
            Handled = all.Sum(c => c.Handled),
            Lost = combined.Sum(p => p.Posted is { } posted ? Math.Max(0, posted - p.Handled) : 0),
            Repeats = all.Sum(c => c.Repeats),
            PossibleRepeats = all.Sum(c => c.PossibleRepeats),
            Malformed = all.Sum(c => c.Malformed),
            Refused = all.Sum(c => c.Refused),
            Unhandled = all.Sum(c => c.Unhandled),
            Producers = combined,
        };
    }
}

/// <summary>One producer as a consumer saw it.</summary>
/// <param name="Producer">The producer's identity (<see cref="NatsPipeProducer{T}.ProducerId"/>).</param>
/// <param name="Posted">How many messages it posted, from its end marker; <see langword="null"/> until that arrived.</param>
/// <param name="Handled">How many of them this consumer handed to its handler.</param>
public sealed record NatsProducerCounts(string Producer, long? Posted, long Handled);

/// <summary>A run of one producer's messages a consumer found missing (<see cref="NatsDelivery.Core"/>).</summary>
/// <param name="Producer">The producer's identity.</param>
/// <param name="First">The first missing sequence number.</param>
/// <param name="Last">The last missing sequence number.</param>
public readonly record struct NatsLoss(string Producer, long First, long Last)
{
    /// <summary>Gets how many messages are missing.</summary>
    public long Count => Last - First + 1;
}
