namespace Concurrency.Messaging.Connectors;

/// <summary>What a subscriber that arrives late sees before live messages.</summary>
public enum ConnectorReplay
{
    /// <summary>Nothing: only messages sent after it subscribed (like <c>Subject&lt;T&gt;</c>).</summary>
    None,

    /// <summary>The latest message, if any (like <c>ReplaySubject&lt;T&gt;(1)</c>).</summary>
    Latest,

    /// <summary>The last <see cref="ConnectorOptions.ReplayCount"/> messages (like <c>ReplaySubject&lt;T&gt;(n)</c>).</summary>
    LastN,
}
