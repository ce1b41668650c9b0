using Microsoft.Extensions.Logging;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// What every stream of one <see cref="PeerServer"/> shares: its options, its sessions, the server's budget of bytes for
/// remembered replies, its counters, its logger, and the token that fires when it stops.
/// </summary>
internal sealed class PeerServerState : IDisposable
{
    private long _handled;
    private long _duplicates;
    private long _failed;
    private long _rememberedBytes;
    private int _streams;

    // A minute's flood of refusals is six warnings of each reason, not one a stream.
    private static readonly TimeSpan RefusalWarningInterval = TimeSpan.FromSeconds(10);
    private readonly RefusalWarnings _refusalWarnings;

    public PeerServerState(PeerServerOptions options, ILogger logger, CancellationToken stopping)
    {
        Options = options;
        Stopping = stopping;
        Logger = logger;
        _refusalWarnings = new RefusalWarnings(options.TimeProvider, RefusalWarningInterval);
        Sessions = new PeerSessions(this);
        PeerMeter.Register(this);
    }

    public PeerServerOptions Options { get; }

    public PeerSessions Sessions { get; }

    public CancellationToken Stopping { get; }

    public ILogger Logger { get; }

    public long Handled => Interlocked.Read(ref _handled);

    public long Duplicates => Interlocked.Read(ref _duplicates);

    public long Failed => Interlocked.Read(ref _failed);

    /// <summary>Gets the streams open now.</summary>
    public int Streams => Volatile.Read(ref _streams);

    /// <summary>Gets the bytes every session's remembered replies hold, as allocated, in all.</summary>
    public long RememberedBytes => Interlocked.Read(ref _rememberedBytes);

    public void CountHandled(int count) => Interlocked.Add(ref _handled, count);

    public void CountDuplicate()
    {
        Interlocked.Increment(ref _duplicates);
        PeerMeter.Add(PeerMeter.ServerResends, 1);
    }

    public void CountFailed() => Interlocked.Increment(ref _failed);

    /// <summary>
    /// Counts and logs a refusal: of a whole stream (a warning, at most one per reason per interval, the rest at debug), or
    /// of one request (debug: a client may send many).
    /// </summary>
    public void Refused(string reason, string detail, bool stream)
    {
        PeerMeter.Refused(reason);
        if (stream)
        {
            if (_refusalWarnings.TryWarn(reason, out var suppressed))
            {
                PeerServiceLog.StreamRefused(Logger, reason, detail, suppressed, RefusalWarningInterval.TotalSeconds);
            }
            else
            {
                PeerServiceLog.StreamRefusedQuietly(Logger, reason, detail);
            }
        }
        else
        {
            PeerServiceLog.RequestRefused(Logger, reason, detail);
        }
    }

    /// <summary>
    /// Takes <paramref name="bytes"/> from the server's budget for remembered replies; false when it would pass it. The
    /// sessions reserve what their memories allocate (arrays at their capacity, strings), before they allocate it.
    /// </summary>
    public bool TryReserveRemembered(long bytes)
    {
        while (true)
        {
            var used = Interlocked.Read(ref _rememberedBytes);
            if (used + bytes > Options.MaxRememberedBytes)
            {
                return false;
            }

            if (Interlocked.CompareExchange(ref _rememberedBytes, used + bytes, used) == used)
            {
                return true;
            }
        }
    }

    public void ReleaseRemembered(long bytes)
    {
        System.Diagnostics.Debug.Assert(bytes >= 0, "A release gives back what was reserved.");
        var left = Interlocked.Add(ref _rememberedBytes, -bytes);
        System.Diagnostics.Debug.Assert(left >= 0, "No more is given back than was reserved.");
    }

    /// <summary>Counts a stream in; false (and nothing counted) when the server has its most streams open.</summary>
    public bool TryOpenStream()
    {
        if (Interlocked.Increment(ref _streams) <= Options.MaxStreams)
        {
            return true;
        }

        Interlocked.Decrement(ref _streams);
        return false;
    }

    public void CloseStream() => Interlocked.Decrement(ref _streams);

    public void Dispose()
    {
        PeerMeter.Unregister(this);
        Sessions.Dispose();
    }
}
