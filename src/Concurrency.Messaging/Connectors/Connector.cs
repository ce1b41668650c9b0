namespace Concurrency.Messaging.Connectors;

/// <summary>Creates <see cref="IConnector{T}"/> instances.</summary>
public static class Connector
{
    /// <summary>Creates a connector.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    /// <returns>A connector with no subscribers.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><see cref="ConnectorOptions.ReplayCount"/> is not positive with <see cref="ConnectorReplay.LastN"/>, or the replay mode is unknown.</exception>
    public static IConnector<T> Create<T>(ConnectorOptions? options = null)
    {
        options ??= new ConnectorOptions();
        var replay = options.Replay switch
        {
            ConnectorReplay.None => 0,
            ConnectorReplay.Latest => 1,
            ConnectorReplay.LastN when options.ReplayCount > 0 => options.ReplayCount,
            ConnectorReplay.LastN => throw new ArgumentOutOfRangeException(nameof(options), options.ReplayCount, "ReplayCount must be positive."),
            _ => throw new ArgumentOutOfRangeException(nameof(options), options.Replay, "Unknown replay mode."),
        };
        return new SubjectConnector<T>(replay, options.SubscriberFaulted);
    }
}
