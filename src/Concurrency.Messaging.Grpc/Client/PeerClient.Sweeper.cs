namespace Concurrency.Messaging.Grpc;

// The sweeper: a timer that fails sends past their deadline and watches the open stream for silence.
public sealed partial class PeerClient
{
    private void TimeOut(PendingSend send)
    {
        if (send.Fail(new PeerDeliveryException(
            PeerDeliveryFailure.Timeout,
            $"No reply from {Address} within {_options.DeliveryTimeout.TotalSeconds:0.###} s{StreamFailures.Describe(_lastError)}.",
            _lastError)))
        {
            Interlocked.Increment(ref _timedOut);
            PeerMeter.Add(PeerMeter.ClientTimeouts, 1);
        }
    }

    // The sweeper, on a timer: carries on with async replies a blocking continuation holds up, fails sends past their
    // deadline, asks for a heartbeat when the stream is quiet, and drops a stream that stayed silent through heartbeats
    // (half-open).
    private void Sweep()
    {
        _replies?.CheckProgress();
        var now = Environment.TickCount64;
        if (_pending.RemoveExpired(now) is { } expired)
        {
            foreach (var send in expired)
            {
                TimeOut(send);
            }
        }

        if (Volatile.Read(ref _connection) is not { } connection)
        {
            return;
        }

        var quiet = now - connection.LastRead;
        if (quiet >= (long)_options.ReadIdleTimeout.TotalMilliseconds)
        {
            Interlocked.Increment(ref _halfOpen);
            PeerMeter.Add(PeerMeter.ClientHalfOpen, 1);
            connection.HalfOpen = true;
            connection.Break(new TimeoutException(
                $"Nothing was read from {Address} for {quiet:N0} ms although heartbeats were sent: the stream is taken as half-open."));
        }
        else if (connection.RequestPingIfQuiet(now, (long)_options.HeartbeatInterval.TotalMilliseconds))
        {
            _buffer.TryAdd(HeartbeatWake);
        }
    }
}
