using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// What every stream of one <see cref="PeerServer"/> shares: its options, its open streams, its sessions, the server's budget of bytes for
/// remembered replies, its counters, its logger, and the token that fires when it stops.
/// </summary>
internal sealed class PeerServerState : IDisposable
{
    private long _handled;
    private long _duplicates;
    private long _failed;
    private long _rememberedBytes;

    // A minute's flood of refusals is six warnings of each reason, not one a stream.
    private static readonly TimeSpan RefusalWarningInterval = TimeSpan.FromSeconds(10);
    private readonly RefusalWarnings _refusalWarnings;

    // A meter of the state's own when it was given none (a test's state, made without a container); null otherwise.
    private readonly Meter? _ownMeter;

    public PeerServerState(PeerServerOptions options, ILogger logger, CancellationToken stopping, Meter? meter = null)
    {
        Options = options;
        Stopping = stopping;
        Logger = logger;
        _refusalWarnings = new RefusalWarnings(options.TimeProvider, RefusalWarningInterval);
        OpenStreams = new PeerStreams(options);
        Sessions = new PeerSessions(this);
        meter ??= _ownMeter = new Meter(PeerMeter.Name);
        Meter = new PeerServerMeter(meter, options.Name, this);
    }

    public PeerServerOptions Options { get; }

    /// <summary>Gets the streams open now, and who may open one more.</summary>
    public PeerStreams OpenStreams { get; }

    public PeerSessions Sessions { get; }

    public CancellationToken Stopping { get; }

    public ILogger Logger { get; }

    /// <summary>Gets the server's instruments, on the meter its app's <see cref="IMeterFactory"/> made.</summary>
    public PeerServerMeter Meter { get; }

    public long Handled => Interlocked.Read(ref _handled);

    public long Duplicates => Interlocked.Read(ref _duplicates);

    public long Failed => Interlocked.Read(ref _failed);

    /// <summary>Gets the streams open now.</summary>
    public int Streams => OpenStreams.Count;

    /// <summary>Gets the bytes every session's remembered replies hold, as allocated, in all.</summary>
    public long RememberedBytes => Interlocked.Read(ref _rememberedBytes);

    public void CountHandled(int count) => Interlocked.Add(ref _handled, count);

    public void CountDuplicate()
    {
        Interlocked.Increment(ref _duplicates);
        Meter.Resent();
    }

    public void CountFailed() => Interlocked.Increment(ref _failed);

    /// <summary>
    /// Counts and logs a refusal: of a whole stream (a warning, at most one per reason per interval, the rest at debug), or
    /// of one request (debug: a client may send many).
    /// </summary>
    public void Refused(string reason, string detail, bool stream)
    {
        Meter.Refused(reason);
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

    public void Dispose()
    {
        _ownMeter?.Dispose();
        Sessions.Dispose();
    }
}
