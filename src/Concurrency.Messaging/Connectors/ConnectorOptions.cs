namespace Concurrency.Messaging.Connectors;

/// <summary>Options for <see cref="Connector.Create{T}(ConnectorOptions?)"/>.</summary>
public sealed record ConnectorOptions
{
    /// <summary>Gets what a late subscriber sees. Defaults to <see cref="ConnectorReplay.None"/>.</summary>
    public ConnectorReplay Replay { get; init; } = ConnectorReplay.None;

    /// <summary>Gets how many messages <see cref="ConnectorReplay.LastN"/> replays. Defaults to 1.</summary>
    public int ReplayCount { get; init; } = 1;

    /// <summary>
    /// Gets a callback for the exception of a subscriber that threw (that subscriber has been unsubscribed).
    /// Runs inside the connector's serialization, after the notification has gone to every other subscriber, on the
    /// thread that caused it (the producer's, or the subscriber's own during replay). It should not block; an exception it
    /// throws propagates to that caller.
    /// </summary>
    public Action<Exception>? SubscriberFaulted { get; init; }
}
