using Microsoft.Extensions.Logging;

namespace Concurrency.Messaging.Grpc;

/// <summary>What the peer service logs, through the host's <see cref="ILogger"/>: refusals, and the life of streams.</summary>
internal static partial class PeerServiceLog
{
    [LoggerMessage(1, LogLevel.Warning, "Peer stream refused ({Reason}): {Detail} ({Suppressed} more refused for this reason since the last such warning, logged at Debug only: at most one warning per reason every {IntervalSeconds} s)")]
    public static partial void StreamRefused(ILogger logger, string reason, string detail, int suppressed, double intervalSeconds);

    [LoggerMessage(6, LogLevel.Debug, "Peer stream refused ({Reason}): {Detail} (within the interval of the last warning of this reason)")]
    public static partial void StreamRefusedQuietly(ILogger logger, string reason, string detail);

    [LoggerMessage(2, LogLevel.Debug, "Peer request refused ({Reason}): {Detail}")]
    public static partial void RequestRefused(ILogger logger, string reason, string detail);

    // No session id in either: it is the client's credential for its session (whoever presents it resumes the session and
    // reads its remembered replies), and logs are read by more people, and kept longer, than the server's memory.
    [LoggerMessage(3, LogLevel.Debug, "Peer stream opened ({Sessions} sessions)")]
    public static partial void StreamOpened(ILogger logger, int sessions);

    [LoggerMessage(4, LogLevel.Debug, "Peer stream ended (client closed: {ClientClosed})")]
    public static partial void StreamEnded(ILogger logger, bool clientClosed);

    // Debug, not Error: a client chooses what it sends, so it could make every one of its requests fail and fill the log.
    [LoggerMessage(5, LogLevel.Debug, "Peer handler failed on '{Type}'; the caller was told only that it failed (PeerServerOptions.EnableDetailedErrors is off)")]
    public static partial void HandlerFailed(ILogger logger, string type, Exception error);
}
