namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The timer of a <see cref="PeerClient"/>: it fails sends past their deadline, asks the pump for a heartbeat when the
/// open stream is quiet, drops a stream that stayed silent through heartbeats (half-open), and carries async replies on
/// past a continuation that blocks.
/// </summary>
/// <remarks>
/// A tick works on objects that guard themselves (the pending table, the buffer, the reply delivery, the connection) and,
/// of its own fields, writes only <see cref="_halfOpen"/> (Interlocked); the connection it watches is written by the pump
/// (<see cref="Watch"/>) and read by the timer, volatile. Two ticks may overlap if one runs past the period, which the
/// objects it touches allow (at worst a heartbeat is asked for twice).
/// </remarks>
internal sealed class PeerSweeper : IAsyncDisposable
{
    /// <summary>Put in the buffer by the sweeper to wake an idle pump so that it writes a heartbeat; never numbered or sent.</summary>
    public static readonly PendingSend HeartbeatWake = new(default, 0, long.MaxValue, null);

    private readonly PeerClientState _state;
    private readonly long _readIdleTimeoutMs;
    private readonly long _heartbeatIntervalMs;
    private readonly Timer _timer;

    // The open stream, or null between streams: written by the pump, read by the timer.
    private PeerConnection? _connection;

    private long _halfOpen;

    public PeerSweeper(PeerClientState state)
    {
        _state = state;
        var options = state.Options;
        _readIdleTimeoutMs = (long)options.ReadIdleTimeout.TotalMilliseconds;
        _heartbeatIntervalMs = (long)options.HeartbeatInterval.TotalMilliseconds;
        var period = TimeSpan.FromMilliseconds(Math.Clamp(
            Math.Min(options.HeartbeatInterval.TotalMilliseconds, options.DeliveryTimeout.TotalMilliseconds) / 4, 10, 250));
        _timer = new Timer(static sweeper => ((PeerSweeper)sweeper!).Sweep(), this, period, period);
    }

    /// <summary>Gets how many streams were dropped as half-open.</summary>
    public long HalfOpenCount => Interlocked.Read(ref _halfOpen);

    /// <summary>The pump: the stream to watch for silence, or null between streams.</summary>
    public void Watch(PeerConnection? connection) => Volatile.Write(ref _connection, connection);

    public ValueTask DisposeAsync() => _timer.DisposeAsync();

    private void Sweep()
    {
        _state.Replies?.CheckProgress();
        var now = Environment.TickCount64;
        if (_state.Pending.RemoveExpired(now) is { } expired)
        {
            foreach (var send in expired)
            {
                _state.TimeOut(send);
            }
        }

        if (Volatile.Read(ref _connection) is not { } connection)
        {
            return;
        }

        var quiet = now - connection.LastRead;
        if (quiet >= _readIdleTimeoutMs)
        {
            Interlocked.Increment(ref _halfOpen);
            PeerMeter.Add(PeerMeter.ClientHalfOpen, 1);
            connection.HalfOpen = true;
            connection.Break(new TimeoutException(
                $"Nothing was read from {_state.Address} for {quiet:N0} ms although heartbeats were sent: the stream is taken as half-open."));
        }
        else if (connection.RequestPingIfQuiet(now, _heartbeatIntervalMs))
        {
            _state.Buffer.TryAdd(HeartbeatWake);
        }
    }
}
