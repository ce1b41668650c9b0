using System.Diagnostics;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// Ends the JetStream publishes of one producer that nothing answers, with one timer rather than one per publish (which
/// would cost more than the publish): each attempt waits on the current generation's token; every quarter of the limit,
/// when attempts wait and no answer came for the limit, the generation is cancelled (its attempts are sent again) and the
/// next begins. A publish made while the connection is down may otherwise wait for it indefinitely.
/// </summary>
/// <remarks>
/// Concurrency rule: <see cref="Begin"/>, <see cref="Answered"/> and <see cref="End"/> on any thread, any number at once;
/// the timer alone replaces the generation. A generation is linked to the producer's stop, so a fault or disposal ends
/// every attempt, and after the stop no new generation begins.
/// </remarks>
internal sealed class PublishWatchdog : IAsyncDisposable
{
    private readonly CancellationToken _stop;
    private readonly TimeSpan _limit;
    private readonly Timer _timer;
    private CancellationTokenSource _generation; // the current attempts' token: linked to the stop, replaced by Watch
    private long _lastAnswer;                    // when the server last answered (or the first of those waiting was sent)
    private int _waiting;                        // attempts awaiting the server's answer

    /// <summary>Starts the timer.</summary>
    /// <param name="limit">How long attempts may wait with no answer at all before they are ended.</param>
    /// <param name="stop">The producer's stop.</param>
    public PublishWatchdog(TimeSpan limit, CancellationToken stop)
    {
        Debug.Assert(limit > TimeSpan.Zero, "The options were checked.");
        _stop = stop;
        _limit = limit;
        _generation = CancellationTokenSource.CreateLinkedTokenSource(stop);
        _timer = new Timer(static state => ((PublishWatchdog)state!).Watch(), this, limit / 4, limit / 4);
    }

    /// <summary>An attempt begins: gives the token that ends it if nothing answers. Pair with <see cref="End"/>.</summary>
    public CancellationToken Begin()
    {
        var generation = Volatile.Read(ref _generation);
        if (Interlocked.Increment(ref _waiting) == 1)
        {
            Volatile.Write(ref _lastAnswer, Stopwatch.GetTimestamp()); // the clock starts with the first attempt waiting
        }

        return generation.Token;
    }

    /// <summary>The server answered an attempt.</summary>
    public void Answered() => Volatile.Write(ref _lastAnswer, Stopwatch.GetTimestamp());

    /// <summary>An attempt ended, answered or not.</summary>
    public void End() => Interlocked.Decrement(ref _waiting);

    /// <summary>Stops the timer.</summary>
    public ValueTask DisposeAsync() => _timer.DisposeAsync();

    private void Watch()
    {
        if (_stop.IsCancellationRequested)
        {
            return; // every attempt ends with the stop; no new generation after it
        }

        if (Volatile.Read(ref _waiting) > 0 && Stopwatch.GetElapsedTime(Volatile.Read(ref _lastAnswer)) > _limit)
        {
            Volatile.Write(ref _lastAnswer, Stopwatch.GetTimestamp());
            Interlocked.Exchange(ref _generation, CancellationTokenSource.CreateLinkedTokenSource(_stop)).Cancel();
        }
    }
}
