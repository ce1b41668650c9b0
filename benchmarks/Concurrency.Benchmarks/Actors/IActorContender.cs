using Concurrency.Benchmarks.Backbone.Latency;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// One actor system under test, set up once per benchmark case (untimed: actors created and handshaken) and then run block
/// after block. Every run counts delivery at the receiving actor, not sends, waits (bounded) until everything arrived, and
/// returns what arrived so the benchmark can verify it. <see cref="IDisposable.Dispose"/> shuts the whole system down.
/// </summary>
internal interface IActorContender : IDisposable
{
    /// <summary>
    /// Creates <paramref name="pairs"/> ping-pong pairs and handshakes each (one round trip). In a run, each pair keeps
    /// <paramref name="inFlight"/> messages in flight: the pinger sends that many at the start, and sends one more each time
    /// a pong comes back, until it has sent its quota.
    /// </summary>
    void SetUpPingPong(int pairs, int inFlight);

    /// <summary>
    /// Each pair exchanges <paramref name="roundTripsPerPair"/> round trips (a ping and its pong: two messages delivered).
    /// Returns the messages delivered over all pairs (2 × pairs × round trips) and the sum of the sequence numbers the
    /// pingers got back in their pongs.
    /// </summary>
    RunTotals RunPingPong(long roundTripsPerPair);

    /// <summary>Creates a ring of <paramref name="actors"/> actors, each forwarding to the next, and handshakes it.</summary>
    void SetUpRing(int actors);

    /// <summary>
    /// Sends <paramref name="messages"/> tokens round the ring, actors × messages hops in all (Armstrong's challenge).
    /// One at a time (<paramref name="allAtOnce"/> false, the seed's part 1): one token goes round the ring
    /// <paramref name="messages"/> times. All at once (the seed's part 3): <paramref name="messages"/> tokens injected
    /// together, each going round once. Returns the hops delivered and the sum of the token numbers that completed a lap.
    /// </summary>
    /// <remarks>
    /// With <paramref name="pacedBy"/> (all at once only: the latency command), token k is sent when message k − 1 of the
    /// recorder's schedule is due, not as fast as the sender can, and the end of its lap is recorded there.
    /// </remarks>
    RunTotals RunRing(int messages, bool allAtOnce, LatencyRecorder? pacedBy = null);
}
