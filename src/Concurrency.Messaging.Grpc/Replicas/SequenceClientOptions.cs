namespace Concurrency.Messaging.Grpc;

/// <summary>Options for <see cref="SequenceClient.Create"/>.</summary>
public sealed record SequenceClientOptions
{
    /// <summary>
    /// Gets how long the client waits for one replica's answer before it asks the next: the bound on a failover, where
    /// the peer client alone would resend to one address for up to its delivery timeout. Defaults to 2 seconds.
    /// </summary>
    public TimeSpan FailoverTimeout { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>Gets the index of the replica to ask first, or null for a random one (spreading clients over replicas).</summary>
    public int? FirstReplica { get; init; }

    /// <summary>Gets the name the client's requests carry as their source. Defaults to <c>sequence-client</c>.</summary>
    public string Name { get; init; } = "sequence-client";

    /// <summary>
    /// Gets the options of the peer client to each replica (token, trusted certificate, buffer). Defaults to async mode.
    /// Its <see cref="PeerClientOptions.DeliveryTimeout"/> is replaced by <see cref="FailoverTimeout"/>. The default waits at
    /// most 500 ms between reconnects (not the peers' 2 s), so that a replica back from a crash is found again before a
    /// client that fails over to it gives up on it.
    /// </summary>
    public PeerClientOptions PeerClient { get; init; } = new() { MaxReconnectDelay = TimeSpan.FromMilliseconds(500) };

    internal void Validate(int replicas)
    {
        PeerClientOptions.Positive(FailoverTimeout, nameof(FailoverTimeout));

        if (FirstReplica is { } first && (first < 0 || first >= replicas))
        {
            throw OutOfRange(nameof(FirstReplica), first, $"Must be an index into the {replicas} addresses.");
        }

        ArgumentNullException.ThrowIfNull(Name, nameof(Name));
        ArgumentNullException.ThrowIfNull(PeerClient, nameof(PeerClient));
    }

    private static ArgumentOutOfRangeException OutOfRange(string name, object value, string message) => new(name, value, message);
}
