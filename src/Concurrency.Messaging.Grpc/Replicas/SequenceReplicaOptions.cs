namespace Concurrency.Messaging.Grpc;

/// <summary>Options for <see cref="SequenceReplica.StartAsync"/> and <see cref="ReplicaHosting.AddSequenceReplica"/>.</summary>
public sealed record SequenceReplicaOptions
{
    /// <summary>Gets the replica's id, 0 to <see cref="ReplicaIdentity.MaxReplicas"/> − 1: the low bits of every identity it hands out. Unique in the cluster. Required.</summary>
    public int Id { get; init; } = -1;

    /// <summary>
    /// Gets the folder where the replica keeps its checkpoint (one small file, <c>replica.checkpoint</c>). It must survive
    /// restarts: a replica restarted on an empty folder under an id used before can hand out identities it handed out then.
    /// Required.
    /// </summary>
    public string DataFolder { get; init; } = string.Empty;

    /// <summary>Gets the addresses of the other replicas (their peer servers), e.g. <c>http://127.0.0.1:5001</c>. Empty for a replica alone.</summary>
    public IReadOnlyList<string> Peers { get; init; } = [];

    /// <summary>Gets how often the replica exchanges counters with each peer. Defaults to 100 ms.</summary>
    public TimeSpan SyncPeriod { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Gets how long one exchange with a peer may take before it counts as failed (the next period tries again; one exchange
    /// per peer is in flight at a time). Defaults to 2 seconds.
    /// </summary>
    public TimeSpan SyncTimeout { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>Gets how many counters one durable reservation covers (one fsync each). Defaults to 65,536.</summary>
    public long BlockSize { get; init; } = 65_536;

    /// <summary>
    /// Gets the most one request may raise the counter by: a client's floor or update further past the replica's counter is
    /// refused (it is not an identity the cluster handed out lately, and would spend the cluster's counters at once), and a
    /// peer's counter further ahead is taken in steps of this, one per exchange. Defaults to 2^32 counters (over an hour
    /// of a million identities a second on one replica while the others stood still).
    /// </summary>
    public long MaxJump { get; init; } = 1L << 32;

    /// <summary>
    /// Gets how long a replica id stays in use after a peer last heard from it: a replica starting under an id that a peer
    /// heard from another instance more recently than this is refused, and waits up to this long for it to lapse (a replica
    /// restarted after a crash is let in then). Defaults to 3 × <see cref="SyncPeriod"/>, at least 1 second.
    /// </summary>
    public TimeSpan? InUseWindow { get; init; }

    /// <summary>
    /// Gets the peer server's options (addresses, token, certificate, limits). Its <see cref="PeerServerOptions.Handler"/> is
    /// replaced by the replica's. Defaults to <c>http://127.0.0.1:0</c> with no token.
    /// </summary>
    public PeerServerOptions Server { get; init; } = new();

    /// <summary>
    /// Gets a secret every replica of the cluster shares (16 bytes or more), or null for none. With one, every exchange
    /// carries an HMAC-SHA256 of its fields under it and a replica answers only exchanges signed so: clients and peers share
    /// the peer server's token, and without a key a client holding the token could pose as a replica (raise counters, keep
    /// an id "in use"). Replicas with different keys do not synchronize (their exchanges fail and are counted). Give
    /// every replica one off loopback; the <c>replica</c> command requires it there.
    /// </summary>
    public byte[]? ClusterKey { get; init; }

    /// <summary>Gets the options of the replica's clients to its peers (token, trusted certificate). Defaults to the peers' defaults in async mode.</summary>
    public PeerClientOptions PeerClient { get; init; } = new();

    /// <summary>
    /// Gets a file to write the counter's timestamped records to when the replica stops (17-byte rows: the machine's
    /// monotonic timestamp, the counter, 1 for an identity handed out and 0 for a raise by a synchronization; hand-outs
    /// sampled every 100 µs), for measuring staleness; null keeps none.
    /// </summary>
    public string? CounterRecordsPath { get; init; }

    /// <summary>Gets the clock of the synchronization timer (a fake one in tests). Defaults to the system's.</summary>
    public TimeProvider TimeProvider { get; init; } = TimeProvider.System;

    internal TimeSpan EffectiveInUseWindow => InUseWindow ?? TimeSpan.FromTicks(Math.Max(3 * SyncPeriod.Ticks, TimeSpan.TicksPerSecond));

    internal void Validate()
    {
        if (Id < 0 || Id >= ReplicaIdentity.MaxReplicas)
        {
            throw new ArgumentOutOfRangeException(nameof(Id), Id, $"A replica id is 0 to {ReplicaIdentity.MaxReplicas - 1}.");
        }

        if (string.IsNullOrWhiteSpace(DataFolder))
        {
            throw new ArgumentException("A replica needs a data folder that survives restarts.", nameof(DataFolder));
        }

        ArgumentNullException.ThrowIfNull(Peers, nameof(Peers));
        ArgumentNullException.ThrowIfNull(Server, nameof(Server));
        ArgumentNullException.ThrowIfNull(PeerClient, nameof(PeerClient));
        ArgumentNullException.ThrowIfNull(TimeProvider, nameof(TimeProvider));
        // Checked as the peer clients will check them, so that a bad address fails here and not once the folder is open.
        PeerClient.Validate();
        foreach (var peer in Peers)
        {
            Grpc.PeerClient.CheckAddress(peer, PeerClient, nameof(Peers));
        }

        if (MaxJump < BlockSize || MaxJump > ReplicaIdentity.MaxCounter / 1024)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxJump), MaxJump, "At least BlockSize, and a small part of the counter's range.");
        }

        if (ClusterKey is { Length: < 16 })
        {
            throw new ArgumentException("A cluster key is 16 bytes or more.", nameof(ClusterKey));
        }

        PeerClientOptions.Positive(SyncPeriod, nameof(SyncPeriod));
        PeerClientOptions.Positive(SyncTimeout, nameof(SyncTimeout));
        if (InUseWindow is { } window)
        {
            PeerClientOptions.Positive(window, nameof(InUseWindow));
        }

        if (BlockSize < 2 || BlockSize > ReplicaIdentity.MaxCounter / 1024)
        {
            throw new ArgumentOutOfRangeException(nameof(BlockSize), BlockSize, "A block is 2 counters or more, and a small part of the counter's range.");
        }
    }
}
