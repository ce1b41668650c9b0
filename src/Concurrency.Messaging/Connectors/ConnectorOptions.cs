namespace Concurrency.Messaging.Connectors;

/// <summary>Options for <see cref="Connector.Create{T}(ConnectorOptions?)"/>.</summary>
public sealed record ConnectorOptions
{
    /// <summary>Gets what a late subscriber sees. Defaults to <see cref="ConnectorReplay.None"/>.</summary>
    public ConnectorReplay Replay { get; init; } = ConnectorReplay.None;

    /// <summary>Gets how many messages <see cref="ConnectorReplay.LastN"/> replays. Defaults to 1.</summary>
    public int ReplayCount { get; init; } = 1;

    /// <summary>
    /// Gets a callback for the exception of a subscriber whose OnNext threw (that subscriber has been unsubscribed).
    /// Runs on the producer's thread, inside the connector's serialization: it must not throw or block.
    /// </summary>
    public Action<Exception>? SubscriberFaulted { get; init; }
}
