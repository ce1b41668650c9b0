namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One replica of a replicated identity service (seed 000's distributed system): a counter that hands out identities, a
/// <see cref="PeerServer"/> that answers <see cref="SequenceClient"/>s and the other replicas, a <see cref="PeerClient"/> to
/// each peer, and a timer that exchanges counters with every peer each <see cref="SequenceReplicaOptions.SyncPeriod"/>,
/// both sides keeping the larger. Together the replicas hand out identities with no coordination on the request path.
/// </summary>
/// <remarks>
/// <para>What the cluster promises (docs/replicas.md has the protocol, the costs and each failure):</para>
/// <list type="bullet">
/// <item><b>Unique</b>: no two identities handed out are equal, ever, across crashes and restarts, while each replica's
/// data folder survives and ids are unique (a second replica under an id a peer heard recently, or on a folder in use, is refused).</item>
/// <item><b>Crash safe</b>: a replica hands out a counter only from a block it reserved on disk first (one fsync a block).</item>
/// <item><b>Monotonic for a client</b>: a <see cref="SequenceClient"/> sends its largest identity with each request, and the
/// replica answers above it, on whichever replica the client is.</item>
/// <item><b>Bounded staleness</b>: once every pair of live replicas has completed one exchange that began after an
/// instant, every identity they hand out is larger than every identity handed out anywhere before that instant (a
/// replica restarted since has taken part in no such exchange until its first one).</item>
/// <item><b>Available</b>: a replica whose peers are all down keeps handing out identities, and catches up when they return.</item>
/// </list>
/// <para>Not promised: one order for all callers (two replicas hand out interleaved identities between exchanges).</para>
/// </remarks>
public sealed class SequenceReplica : IAsyncDisposable
{
    private readonly ReplicaNode _node;
    private readonly PeerServer _server;

    private SequenceReplica(ReplicaNode node, PeerServer server)
    {
        _node = node;
        _server = server;
    }

    /// <summary>Gets the replica's id.</summary>
    public int Id => _node.Options.Id;

    /// <summary>Gets the address clients and peers reach this replica at.</summary>
    public Uri Address => _server.Address;

    /// <summary>Gets the replica's counter now (the high bits of its last identity, or higher after a synchronization).</summary>
    public long Counter => _node.Counter.Counter;

    /// <summary>Gets the counter up to which identities are reserved on disk.</summary>
    public long Reserved => _node.Counter.Reserved;

    /// <summary>Gets how many identities this replica handed out since it started.</summary>
    public long HandedOutCount => _node.Counter.HandedOut;

    /// <summary>Gets how many exchanges with peers completed (this replica's side: the ones it started).</summary>
    public long ExchangeCount => _node.Exchanges;

    /// <summary>Gets how many exchanges this replica started that failed or timed out (a peer down or slow).</summary>
    public long FailedExchangeCount => _node.FailedExchanges;

    /// <summary>Gets how many exchanges were refused because an id was in use, either way.</summary>
    public long RefusalCount => _node.Refusals;

    /// <summary>Gets the node, for tests.</summary>
    internal ReplicaNode Node => _node;

    /// <summary>
    /// Starts a replica: opens its data folder, checks with every reachable peer that its id is not in use (a restart
    /// after a crash waits up to <see cref="SequenceReplicaOptions.InUseWindow"/> for its old instance to lapse), takes the
    /// peers' counters, then serves.
    /// </summary>
    /// <param name="options">The replica's options.</param>
    /// <param name="cancellationToken">Cancels the start.</param>
    /// <returns>The running replica. Dispose it.</returns>
    /// <exception cref="ArgumentException">An option is invalid.</exception>
    /// <exception cref="IOException">The data folder is in use by another replica or cannot be read, or the address cannot be bound.</exception>
    /// <exception cref="InvalidDataException">The data folder belongs to another id, or its checkpoint is damaged (it is left as it is).</exception>
    /// <exception cref="InvalidOperationException">A peer says the id is in use.</exception>
    public static async Task<SequenceReplica> StartAsync(SequenceReplicaOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        var node = new ReplicaNode(options);
        PeerServer? server = null;
        try
        {
            // The server first, answering peers' exchanges only: replicas that start together then check each other.
            await node.OpenAsync().ConfigureAwait(false);
            server = await PeerServer.StartAsync(options.Server with { Handler = node.HandleAsync }, cancellationToken).ConfigureAwait(false);
            await node.CheckAsync(cancellationToken).ConfigureAwait(false);
            return new SequenceReplica(node, server);
        }
        catch
        {
            try
            {
                if (server is not null)
                {
                    await server.DisposeAsync().ConfigureAwait(false);
                }
            }
            finally
            {
                await node.DisposeAsync().ConfigureAwait(false);
            }

            throw;
        }
    }

    /// <summary>
    /// Starts an exchange with every peer that has none in flight now (beside the timer's periods) and waits for those it
    /// started.
    /// </summary>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>A task that finishes when every exchange it started completed, failed or timed out.</returns>
    public Task SyncNowAsync(CancellationToken cancellationToken = default) => _node.SyncRoundAsync(cancellationToken);

    /// <summary>Stops serving (replies already made are written), stops the timer and the peer clients, and releases the data folder.</summary>
    /// <returns>A task that finishes when the replica is gone.</returns>
    public async ValueTask DisposeAsync()
    {
        try
        {
            await _server.DisposeAsync().ConfigureAwait(false);
        }
        finally
        {
            await _node.DisposeAsync().ConfigureAwait(false);
        }
    }
}
