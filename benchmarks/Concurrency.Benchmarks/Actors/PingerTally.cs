namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// A pinger's side of one run, shared by every framework's pinger so they all play the same game: open with a window of
/// <see cref="InFlight"/> pings, send one more for each pong until the quota is sent, count and sum the pongs, and arrive
/// at the run's signal when the last pong is back. Pings carry sequence numbers 1 to the quota.
/// </summary>
/// <remarks>
/// Concurrency rule: during a run only the pinger actor touches it; the benchmark thread arms it before the run's first
/// send (the mailbox's enqueue publishes that) and reads it after the run's signal.
/// </remarks>
internal sealed class PingerTally(BlockSignal signal, int inFlight)
{
    private Token[] _tokens = []; // sequence numbers 1..quota (at least); see the remarks for the fields below
    private long _quota;
    private long _sent;
    private long _received;
    private long _checksum;

    public int InFlight { get; } = inFlight;

    public long Received => _received;

    public long Checksum => _checksum;

    /// <summary>Benchmark thread, before the run: <paramref name="tokens"/> holds at least <paramref name="quota"/> tokens.</summary>
    public void Arm(Token[] tokens, long quota)
    {
        _tokens = tokens;
        _quota = quota;
        _sent = 0;
        _received = 0;
        _checksum = 0;
    }

    /// <summary>The next ping to send, or null when the quota is sent.</summary>
    public Token? Next() => _sent < _quota ? _tokens[_sent++] : null;

    /// <summary>Counts a pong; returns the next ping to send, or null (then, at the last pong, arrives at the signal).</summary>
    public Token? Returned(Token pong)
    {
        _received++;
        _checksum += pong.Number;
        if (Next() is { } ping)
        {
            return ping;
        }

        if (_received == _quota)
        {
            signal.Arrive();
        }

        return null;
    }
}
