using Concurrency.Benchmarks.Backbone.Latency;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// The ring starter's side of one run, shared by every framework's ring: the starter (member 0) ends each token's lap,
/// counting it and adding the token's number to the checksum. Tokens are numbered 1 to M. One at a time, token k's lap
/// ends by sending token k + 1 round until token M is back; all at once, the M tokens were injected together and the run
/// ends when all M are back. Either way the checksum is 1 + 2 + … + M = M(M + 1)/2.
/// </summary>
/// <remarks>
/// Concurrency rule: during a run only the starter actor touches it; the benchmark thread arms it before the run's first
/// send (the mailbox's enqueue publishes that) and reads it after the run's signal.
/// </remarks>
internal sealed class RingLaps(BlockSignal signal)
{
    private Token[] _tokens = []; // numbered 1..messages (at least); see the remarks for the fields below
    private long _messages;
    private bool _allAtOnce;
    private long _laps;
    private long _checksum;
    private LatencyRecorder? _recorder; // the latency command's: times each lap's end against token k's due time

    public long Checksum => _checksum;

    /// <summary>
    /// Benchmark thread, before the run: <paramref name="tokens"/> holds at least <paramref name="messages"/> tokens; with
    /// <paramref name="recorder"/>, token k's lap is timed as message k − 1 of the recorder's schedule.
    /// </summary>
    public void Arm(Token[] tokens, long messages, bool allAtOnce, LatencyRecorder? recorder = null)
    {
        _recorder = recorder;
        _tokens = tokens;
        _messages = messages;
        _allAtOnce = allAtOnce;
        _laps = 0;
        _checksum = 0;
    }

    /// <summary>A token came back to the starter: returns the token to send round next, or null.</summary>
    public Token? Completed(Token token)
    {
        _recorder?.Handled(token.Number);
        _checksum += token.Number;
        if (++_laps == _messages)
        {
            signal.Arrive();
            return null;
        }

        return _allAtOnce ? null : _tokens[_laps];
    }
}
