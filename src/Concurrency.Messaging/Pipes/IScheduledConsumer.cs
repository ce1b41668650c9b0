namespace Concurrency.Messaging.Pipes;

/// <summary>A consumer that runs as turns on a shared pool rather than on a thread of its own.</summary>
internal interface IScheduledConsumer
{
    /// <summary>
    /// Queues one turn. The queue calls this exactly once each time the consumer goes from idle to having work (or the queue
    /// closes while it is idle), so a turn is never queued twice and never missed.
    /// </summary>
    void Schedule();
}
