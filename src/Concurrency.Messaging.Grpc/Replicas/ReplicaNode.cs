namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A replica's parts without its server: the checkpoint, the counter, a client per peer and the synchronization timer,
/// and the handler the peer server calls. <see cref="SequenceReplica"/> gives it a <see cref="PeerServer"/> of its own;
/// <see cref="ReplicaHosting"/> gives it the app's.
/// </summary>
/// <remarks>
/// <para>
/// Start is two steps: <see cref="OpenAsync"/> (the folder, the counter, the peer clients; from then on the handler
/// answers peers' exchanges, so that replicas starting together check each other) and <see cref="CheckAsync"/> (the id
/// checked with every reachable peer, then the timer; from then on the handler answers clients).
/// </para>
/// <para>
/// Synchronization: every <see cref="SequenceReplicaOptions.SyncPeriod"/> the replica starts one exchange with each peer
/// that has none in flight: it sends its id, its instance (random per start) and its counter; the peer keeps the larger
/// counter and answers with its own, which the replica keeps if larger. A peer refuses an id that is its own, or that it
/// heard from another instance within its <see cref="SequenceReplicaOptions.InUseWindow"/>; a replica refused once it
/// serves hands out nothing more (two replicas under one id would repeat identities). Concurrency: the counter has its
/// own lock; <c>_heard</c> is guarded by itself; each peer's exchange in flight is set and cleared with Interlocked.
/// </para>
/// </remarks>
internal sealed class ReplicaNode : IAsyncDisposable
{
    private readonly SequenceReplicaOptions _options;
    private readonly TimeProvider _clock;
    private readonly string _source;
    private readonly Dictionary<int, (long Instance, long Timestamp)> _heard = []; // guarded by itself: who exchanged with this replica, and when
    private readonly CancellationTokenSource _stop = new();
    private ReplicaCheckpoint? _checkpoint;
    private ReplicaCounter? _made;    // the counter, from OpenAsync on: what exchanges use and a stop closes
    private ReplicaCounter? _counter; // the same once the id is checked, null until then: clients' requests before that are answered "starting"
    private Peer[] _peers = [];
    private Task _loop = Task.CompletedTask;
    private long _exchanges;
    private long _failedExchanges;
    private long _refusals;
    private int _disposed;

    public ReplicaNode(SequenceReplicaOptions options)
    {
        options.Validate();
        _options = options;
        _clock = options.TimeProvider;
        _source = $"replica-{options.Id}";
        Instance = Random.Shared.NextInt64(1, long.MaxValue);
    }

    /// <summary>Gets this run's instance: random per start, so that peers tell a restart from a second replica under the same id.</summary>
    public long Instance { get; }

    public SequenceReplicaOptions Options => _options;

    public ReplicaCounter Counter => _made ?? throw new InvalidOperationException("The replica has not started.");

    public long Exchanges => Interlocked.Read(ref _exchanges);

    public long FailedExchanges => Interlocked.Read(ref _failedExchanges);

    public long Refusals => Interlocked.Read(ref _refusals);

    /// <summary>Opens the checkpoint, makes the counter and the peer clients.</summary>
    /// <exception cref="IOException">The data folder is in use by another replica, or cannot be read.</exception>
    /// <exception cref="InvalidDataException">The data folder belongs to another id, or its checkpoint is damaged.</exception>
    public Task OpenAsync()
    {
        _checkpoint = ReplicaCheckpoint.Open(_options.DataFolder, _options.Id);
        var checkpoint = _checkpoint;
        var records = _options.CounterRecordsPath is null ? null : new CounterRecords();
        _made = new ReplicaCounter(_options.Id, checkpoint.Reserved, _options.BlockSize, _options.MaxJump, target =>
        {
            checkpoint.Write(target); // on the counter's reservation task: one at a time
            return Task.CompletedTask;
        }, records);
        var peers = new List<Peer>();
        foreach (var address in _options.Peers)
        {
            peers.Add(new Peer(address, PeerClient.Create(address, _options.PeerClient)));
            _peers = [.. peers]; // so that a stop disposes what was made, even if a later one throws
        }

        return Task.CompletedTask;
    }

    /// <summary>
    /// Checks with every reachable peer that the id is not in use (waiting while a peer says it is, as long as that peer's
    /// window says, bounded), takes the peers' counters, starts the timer, and lets clients in.
    /// </summary>
    /// <exception cref="InvalidOperationException">A peer says the id is in use.</exception>
    public async Task CheckAsync(CancellationToken cancellationToken)
    {
        var counter = Counter;
        var started = _clock.GetTimestamp();
        var deadline = started + Ticks(_options.EffectiveInUseWindow + _options.SyncTimeout);
        while (true)
        {
            var outcomes = await Task.WhenAll(_peers.Select(peer => ExchangeAsync(peer, counter, cancellationToken))).ConfigureAwait(false);
            if (outcomes.FirstOrDefault(outcome => outcome is not null) is not { } refusal)
            {
                break;
            }

            // A peer's window may be longer than ours: an old instance that died before we started lapses there within that
            // window of our start, so wait that long (at most ten of our own windows); a live one keeps the id, and we give up.
            var now = _clock.GetTimestamp();
            if (refusal.Window != TimeSpan.MaxValue)
            {
                deadline = Math.Max(deadline, started + Math.Min(Ticks(refusal.Window + _options.SyncTimeout), 10 * Ticks(_options.EffectiveInUseWindow + _options.SyncTimeout)));
            }

            if (now >= deadline || refusal.Window == TimeSpan.MaxValue)
            {
                throw new InvalidOperationException($"Replica {_options.Id} was refused: {refusal.Reason}");
            }

            await Task.Delay(_options.SyncPeriod, _clock, cancellationToken).ConfigureAwait(false);
        }

        Volatile.Write(ref _counter, counter);
        _loop = RunAsync(_stop.Token);
    }

    /// <summary>Answers a client's or a peer's request (the peer server's handler).</summary>
    public ValueTask<PeerMessage> HandleAsync(PeerMessage request, CancellationToken cancellationToken)
    {
        if (request.Type == ReplicaWire.Sync && Volatile.Read(ref _made) is { } made && Volatile.Read(ref _disposed) == 0)
        {
            return new(ReplicaWire.TrySync(request.Payload, _options.ClusterKey, out var replica, out var instance, out var peerCounter)
                ? AnswerSync(made, replica, instance, peerCounter)
                : NotUnderstood(request));
        }

        var counter = Volatile.Read(ref _counter);
        if (counter is null)
        {
            return new(ReplicaWire.Text(ReplicaWire.Error, _source, $"Replica {_options.Id} is starting or stopped."));
        }

        switch (request.Type)
        {
            case ReplicaWire.Next when ReplicaWire.TryInt64(request.Payload, out var floor) && floor >= 0:
                try
                {
                    var next = counter.NextAsync(floor);
                    return next.IsCompletedSuccessfully
                        ? new(new PeerMessage(ReplicaWire.Identity, _source, ReplicaWire.Int64(next.Result)))
                        : AwaitIdentityAsync(next);
                }
                catch (Exception e) when (IsRefusal(e))
                {
                    return new(ReplicaWire.Text(ReplicaWire.Error, _source, e.Message));
                }

            case ReplicaWire.Update when ReplicaWire.TryInt64(request.Payload, out var value) && value >= 0:
                return AwaitUpdateAsync(counter, value);

            default:
                return new(NotUnderstood(request));
        }
    }

    /// <summary>Runs one exchange with every peer that has none in flight, and waits for those it started.</summary>
    public Task SyncRoundAsync(CancellationToken cancellationToken) =>
        Task.WhenAll(_peers.Select(peer => ExchangeOnceAsync(peer, cancellationToken)));

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 1)
        {
            return;
        }

        try
        {
            await _stop.CancelAsync().ConfigureAwait(false);
            try
            {
                await _loop.ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
            }

            // Exchanges still in flight end with the stop's cancellation: none outlives the node.
            await Task.WhenAll(_peers.Select(peer => peer.Current)).ConfigureAwait(false);
            foreach (var peer in _peers)
            {
                await peer.Client.DisposeAsync().ConfigureAwait(false);
            }

            if (_made is { } counter)
            {
                // The file closes only once the reservation in flight has ended: a handle closed under its fsync stays open (and locked) until then.
                await counter.StopAsync(new ObjectDisposedException(nameof(SequenceReplica), $"Replica {_options.Id} stopped.")).ConfigureAwait(false);
                if (_options.CounterRecordsPath is { } path)
                {
                    counter.WriteRecords(path);
                }
            }
        }
        finally
        {
            _checkpoint?.Dispose();
            _stop.Dispose();
        }
    }

    private static bool IsRefusal(Exception e) => e is InvalidOperationException or IOException or ObjectDisposedException or ArgumentOutOfRangeException;

    private long Ticks(TimeSpan span) => (long)Math.Min(span.TotalSeconds * _clock.TimestampFrequency, long.MaxValue / 4);

    private PeerMessage NotUnderstood(PeerMessage request) =>
        ReplicaWire.Text(ReplicaWire.Error, _source, $"Replica {_options.Id} does not understand a '{request.Type}' request of {request.Payload.Length} bytes (next and update take 8 bytes, a value 0 or more; sync takes {(_options.ClusterKey is null ? ReplicaWire.SyncBytes : ReplicaWire.SignedSyncBytes)}{(_options.ClusterKey is null ? string.Empty : ", signed with the cluster's key")}).");

    private async ValueTask<PeerMessage> AwaitIdentityAsync(ValueTask<long> next)
    {
        try
        {
            return new PeerMessage(ReplicaWire.Identity, _source, ReplicaWire.Int64(await next.ConfigureAwait(false)));
        }
        catch (Exception e) when (IsRefusal(e))
        {
            return ReplicaWire.Text(ReplicaWire.Error, _source, e.Message);
        }
    }

    private async ValueTask<PeerMessage> AwaitUpdateAsync(ReplicaCounter counter, long value)
    {
        try
        {
            await counter.UpdateAsync(value).ConfigureAwait(false);
            return new PeerMessage(ReplicaWire.Updated, _source, ReadOnlyMemory<byte>.Empty);
        }
        catch (Exception e) when (IsRefusal(e))
        {
            return ReplicaWire.Text(ReplicaWire.Error, _source, e.Message);
        }
    }

    private PeerMessage AnswerSync(ReplicaCounter counter, int replica, long instance, long peerCounter)
    {
        if (replica == _options.Id)
        {
            Interlocked.Increment(ref _refusals);
            return ReplicaWire.Refusal(_source, TimeSpan.MaxValue, $"replica id {replica} is already in use by the replica that answered (this is its own id).");
        }

        var now = _clock.GetTimestamp();
        lock (_heard)
        {
            if (_heard.TryGetValue(replica, out var heard) && heard.Instance != instance
                && _clock.GetElapsedTime(heard.Timestamp, now) is var since && since < _options.EffectiveInUseWindow)
            {
                Interlocked.Increment(ref _refusals);
                return ReplicaWire.Refusal(_source, _options.EffectiveInUseWindow, $"replica id {replica} is in use: replica {_options.Id} heard from another instance of it {since.TotalMilliseconds:0} ms ago.");
            }

            _heard[replica] = (instance, now);
        }

        return new PeerMessage(ReplicaWire.Sync, _source, ReplicaWire.SyncPayload(_options.Id, Instance, counter.Raise(peerCounter), _options.ClusterKey));
    }

    private async Task RunAsync(CancellationToken cancellationToken)
    {
        if (_peers.Length == 0)
        {
            return;
        }

        using var timer = new PeriodicTimer(_options.SyncPeriod, _clock);
        while (await timer.WaitForNextTickAsync(cancellationToken).ConfigureAwait(false))
        {
            foreach (var peer in _peers)
            {
                _ = ExchangeOnceAsync(peer, cancellationToken);
            }
        }
    }

    // At most one exchange per peer in flight: a slow or absent peer gets no pile of requests.
    private Task ExchangeOnceAsync(Peer peer, CancellationToken cancellationToken)
    {
        if (Interlocked.Exchange(ref peer.InFlight, 1) == 1)
        {
            return Task.CompletedTask;
        }

        var exchange = Run();
        peer.Current = exchange;
        return exchange;

        async Task Run()
        {
            try
            {
                if (await ExchangeAsync(peer, Counter, cancellationToken).ConfigureAwait(false) is { } refusal)
                {
                    // Refused while serving: another instance holds this id. Two replicas under one id would repeat
                    // identities, so this one hands out nothing more; the other goes on.
                    Interlocked.Increment(ref _refusals);
                    await Counter.StopAsync(new InvalidOperationException($"Replica {_options.Id} stopped handing out: {refusal.Reason}")).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // Stopping.
            }
            finally
            {
                Volatile.Write(ref peer.InFlight, 0);
            }
        }
    }

    // One exchange: null when it completed or the peer did not answer in time, the refusal when refused.
    private async Task<Refusal?> ExchangeAsync(Peer peer, ReplicaCounter counter, CancellationToken cancellationToken)
    {
        using var timeout = new CancellationTokenSource(_options.SyncTimeout, _clock);
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token, cancellationToken);
        PeerMessage reply;
        try
        {
            reply = await peer.Client.SendAsync(new PeerMessage(ReplicaWire.Sync, _source, ReplicaWire.SyncPayload(_options.Id, Instance, counter.Counter, _options.ClusterKey)), linked.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is PeerDeliveryException or PeerRemoteException || (e is OperationCanceledException && !cancellationToken.IsCancellationRequested))
        {
            Interlocked.Increment(ref _failedExchanges);
            return null; // unreachable or slow: the next period tries again
        }

        switch (reply.Type)
        {
            case ReplicaWire.Sync when ReplicaWire.TrySync(reply.Payload, _options.ClusterKey, out var replica, out var instance, out var peerCounter):
                if (replica == _options.Id)
                {
                    return new Refusal(TimeSpan.MaxValue, $"the peer at {peer.Address} has the same id, {replica}.");
                }

                // A peer that answers is heard as much as one that asks: a second replica under its id is then refused here too.
                lock (_heard)
                {
                    _heard[replica] = (instance, _clock.GetTimestamp());
                }

                counter.Raise(peerCounter);
                Interlocked.Increment(ref _exchanges);
                return null;
            case ReplicaWire.Refused when ReplicaWire.TryRefusal(reply.Payload, out var window, out var reason):
                return new Refusal(window, $"the peer at {peer.Address} says {reason}");
            default:
                Interlocked.Increment(ref _failedExchanges);
                return null; // a peer starting or stopping ("error"), or not a replica
        }
    }

    /// <summary>A peer's refusal: why, and the peer's in-use window (<see cref="TimeSpan.MaxValue"/>: the id never lapses there).</summary>
    private sealed record Refusal(TimeSpan Window, string Reason);

    private sealed class Peer(string address, PeerClient client)
    {
        public string Address { get; } = address;

        public PeerClient Client { get; } = client;

        public int InFlight; // 1 while an exchange runs: set and cleared with Interlocked/Volatile

        public Task Current = Task.CompletedTask; // the exchange in flight (or the last): what a stop waits for
    }
}
