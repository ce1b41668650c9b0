namespace Concurrency.Messaging.Pipes;

/// <summary>A pipe's counts whatever its message type, as <see cref="PipeInstruments"/> sums them over the live pipes.</summary>
internal interface IPipeCounts
{
    /// <summary>Gets how many messages the handlers returned from.</summary>
    long HandledCount { get; }

    /// <summary>Gets how many messages a full mode dropped.</summary>
    long DroppedCount { get; }

    /// <summary>Gets how many accepted messages were never handled (a handler's fault, an abort).</summary>
    long UnhandledCount { get; }
}
