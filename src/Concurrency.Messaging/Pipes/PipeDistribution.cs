namespace Concurrency.Messaging.Pipes;

/// <summary>How a pipe with more than one consumer hands out messages.</summary>
public enum PipeDistribution
{
    /// <summary>Every consumer handles every message.</summary>
    Broadcast,

    /// <summary>Each message is handled once, by whichever consumer takes it.</summary>
    WorkSharing,
}
