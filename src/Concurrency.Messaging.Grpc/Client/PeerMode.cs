namespace Concurrency.Messaging.Grpc;

/// <summary>How a <see cref="PeerClient"/> sends and how it hands replies back.</summary>
public enum PeerMode
{
    /// <summary>
    /// One message at a time: the pump writes a message, waits for its reply, then writes the next. The slowest mode,
    /// and the simplest on the wire (the seed's "sync").
    /// </summary>
    Sync,

    /// <summary>
    /// Sends do not wait for replies: the pump writes whatever the buffer holds as one batch, a listener reads replies and
    /// completes each caller by sequence number. Callers' continuations run on the thread pool, in no promised order: the
    /// callers a batch of replies answered, one after another on one pool thread (one work item per batch, not per
    /// message; a failure, timeout or cancellation takes a work item of its own). A continuation that blocks holds up the
    /// callers behind it until the client notices, after about two periods of its sweep (each at most 250 ms; longer if the
    /// thread pool is starved), and carries on with them on another pool thread.
    /// </summary>
    Async,

    /// <summary>
    /// As <see cref="Async"/> on the wire, but replies are delivered in send order: a caller's task completes only after the
    /// tasks of every message sent before it. Continuations run one at a time on the client's delivery loop, in that
    /// order; a continuation that blocks holds up the later replies (not the connection), so do not block in one.
    /// </summary>
    InOrder,
}
