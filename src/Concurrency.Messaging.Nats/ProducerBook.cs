namespace Concurrency.Messaging.Nats;

/// <summary>
/// What a consumer knows of each producer: its state (added on its first message, at most
/// <see cref="NatsPipeOptions.MaxProducers"/>), the end markers that count, and whether every expected producer ended.
/// </summary>
/// <remarks>
/// <para>
/// JetStream keeps end markers in the stream: a consumer counts the markers stored after it started, and those of
/// producers whose messages it has handled; a marker of an earlier run whose messages its group had consumed before (a
/// stream reused from run to run) does not count, so it cannot complete a new run early.
/// </para>
/// <para>
/// Concurrency rule: the consumer's loop and (JetStream) the end markers' reader both add producers and markers, under
/// one lock; a producer's state, once added, stays for the consumer's life, so the loop keeps its last one without the
/// lock (<see cref="FindFromLoop"/>). A producer's <c>Next</c> and <c>Handled</c> have one writer, the loop; its
/// <c>Posted</c> is written under the lock.
/// </para>
/// </remarks>
internal sealed class ProducerBook(NatsPipeOptions options)
{
    private readonly Lock _gate = new();                       // guards the producers, the pending markers and _ended
    private readonly Dictionary<ulong, Producer> _producers = [];
    private readonly List<Producer> _order = [];
    private readonly Dictionary<ulong, long> _pendingMarkers = []; // JetStream: markers stored before the start, of producers not seen yet
    private readonly TaskCompletionSource _allEnded = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _ended;            // producers whose end marker counts (see the remarks)
    private Producer? _loopLast;   // the loop's last producer (FindFromLoop): read and written by the loop only

    /// <summary>Gets or sets the stream's last sequence when the consumer started (JetStream; set before the loop starts).</summary>
    public ulong StartSequence { get; set; }

    /// <summary>Gets whether the expected producers have all ended.</summary>
    public bool AllEnded => options.ExpectedProducers is { } expected && Volatile.Read(ref _ended) >= expected;

    /// <summary>Gets a task that finishes once <see cref="AllEnded"/>.</summary>
    public Task AllEndedTask => _allEnded.Task;

    /// <summary>Gets the producers in the order they were first seen. Core only, and on the loop only: JetStream's markers' reader adds to it.</summary>
    public IReadOnlyList<Producer> SeenOnLoop => _order;

    /// <summary>Each producer's counts, as <see cref="NatsPipeCounts.Producers"/> gives them.</summary>
    public IReadOnlyList<NatsProducerCounts> Counts()
    {
        lock (_gate)
        {
            return [.. _order.Select(p => new NatsProducerCounts(p.Name, p.Posted, Volatile.Read(ref p.Handled)))];
        }
    }

    /// <summary>
    /// An end marker: counts once per producer, at once if it was stored after this consumer started (Core: always) or
    /// its producer's messages were seen here; else it waits until they are (see the remarks).
    /// </summary>
    /// <param name="id">The marker's producer.</param>
    /// <param name="posted">How many messages it posted.</param>
    /// <param name="stored">JetStream: the marker's sequence in the stream; Core: <see cref="ulong.MaxValue"/> (a live marker is always current).</param>
    public void OnEnd(ulong id, long posted, ulong stored)
    {
        lock (_gate)
        {
            if (_producers.TryGetValue(id, out var seen) || stored > StartSequence)
            {
                // Seen here, or current: a producer whose messages may still come. One beyond MaxProducers is counted
                // all the same, so that refusing its messages does not leave the consumer waiting for it.
                var producer = seen ?? Find(id);
                if (producer is null)
                {
                    _ended += _pendingMarkers.TryAdd(id, posted) ? 1 : 0;
                }
                else if (producer.Posted is null)
                {
                    producer.Posted = posted;
                    _ended++;
                }
            }
            else if (_pendingMarkers.Count < options.MaxProducers)
            {
                _pendingMarkers.TryAdd(id, -posted - 1); // negative: not counted yet
            }

            if (AllEnded)
            {
                _allEnded.TrySetResult();
            }
        }
    }

    /// <summary>
    /// The producer's state, added on its first message (taking its end marker if one waits for it); null once
    /// <see cref="NatsPipeOptions.MaxProducers"/> are known.
    /// </summary>
    public Producer? Find(ulong id)
    {
        lock (_gate) // the JetStream markers' reader adds producers too
        {
            if (_producers.TryGetValue(id, out var producer))
            {
                return producer;
            }

            if (_producers.Count >= options.MaxProducers)
            {
                return null;
            }

            var window = options.Delivery == NatsDelivery.JetStream ? new SequenceWindow((int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)options.RepeatWindow)) : null;
            producer = new Producer(id, Envelope.ProducerName(id), window);
            _producers.Add(id, producer);
            _order.Add(producer);
            if (_pendingMarkers.Remove(id, out var pending))
            {
                // A marker stored before this consumer started, of a producer it now sees: it counts from now.
                producer.Posted = pending < 0 ? -pending - 1 : pending;
                _ended += pending < 0 ? 1 : 0;
                if (AllEnded)
                {
                    _allEnded.TrySetResult();
                }
            }

            return producer;
        }
    }

    /// <summary>
    /// The loop's <see cref="Find"/>: the producer of the loop's previous message without taking the lock (see the
    /// remarks), else <see cref="Find"/>.
    /// </summary>
    public Producer? FindFromLoop(ulong id)
    {
        if (_loopLast is { } last && last.Id == id)
        {
            return last;
        }

        var found = Find(id);
        _loopLast = found ?? _loopLast;
        return found;
    }

    /// <summary>One producer as this consumer knows it.</summary>
    internal sealed class Producer(ulong id, string name, SequenceWindow? window)
    {
        public readonly ulong Id = id;
        public readonly string Name = name;
        public readonly SequenceWindow? Window = window; // JetStream: what was handled
        public long Next = 1;     // Core, own subscription: the next sequence number expected
        public long Handled;      // written by the loop, read by Counts
        public long? Posted;      // from the end marker
    }
}
