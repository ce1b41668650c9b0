namespace Concurrency.Messaging.Tests.Races;

/// <summary>How a close race ends the pipe while producers are still posting.</summary>
public enum RaceEnd
{
    /// <summary>Another thread calls <c>TryComplete</c>: every accepted message must still be handled, by every consumer it was for.</summary>
    Complete,

    /// <summary>The abort token fires: nothing may be handled twice, and what was accepted but not handled is counted.</summary>
    Abort,
}
