using Concurrency.Benchmarks.Backbone.Latency;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// The two games written once, so every framework plays them alike and differs only in how it spawns actors and sends:
/// the same actors' logic (<see cref="PingerTally"/>, <see cref="RingLaps"/>, <see cref="DeliveryCount"/>), the same
/// preallocated <see cref="Token"/>s (the process's, <see cref="Token.Shared"/>: allocated once, not in a timed run), the
/// same in-flight window, and the same wait. The benchmark thread arms the tallies, sends the run's first messages from
/// outside, and blocks (bounded) on one <see cref="BlockSignal"/> that the last delivery sets: each pinger arrives when
/// its last pong is back, the ring's starter when its last lap ends.
/// </summary>
/// <remarks>
/// Concurrency rule: the fields here belong to the benchmark thread (setup, runs, dispose: one at a time). Each actor
/// owns its tally or count during a run; see those types for how a run's start and end order the two.
/// </remarks>
internal abstract class ActorContender<TRef> : IActorContender
    where TRef : class
{
    private readonly BlockSignal _signal = new();
    private (TRef Pinger, PingerTally Tally, DeliveryCount Pings)[] _pairs = [];
    private TRef[] _ring = [];
    private DeliveryCount[] _hops = [];             // one per ring member
    private RingLaps? _laps;                        // the ring starter's

    public void SetUpPingPong(int pairs, int inFlight)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(pairs, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(inFlight, 1);
        _pairs = new (TRef, PingerTally, DeliveryCount)[pairs];
        for (var i = 0; i < pairs; i++)
        {
            var tally = new PingerTally(_signal, inFlight);
            var pings = new DeliveryCount();
            var pinger = SpawnPinger(tally);
            var ponger = SpawnRelay(pings, laps: null);
            Send(pinger, new Link<TRef>(ponger));
            Send(ponger, new Link<TRef>(pinger));
            _pairs[i] = (pinger, tally, pings);
        }

        Handshake(RunPingPong(1), new RunTotals(2L * pairs, pairs), "ping-pong");
    }

    public RunTotals RunPingPong(long roundTripsPerPair)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(roundTripsPerPair, 1);
        var tokens = TokensUpTo(roundTripsPerPair);
        foreach (var (_, tally, pings) in _pairs)
        {
            tally.Arm(tokens, roundTripsPerPair);
            pings.Reset();
        }

        _signal.Arm(_pairs.Length, sharedMessages: 0);
        foreach (var (pinger, _, _) in _pairs)
        {
            Send(pinger, StartRun.Instance);
        }

        Wait($"Ping-pong of {_pairs.Length} pairs × {roundTripsPerPair} round trips", PingPongTotals);
        return PingPongTotals();
    }

    public void SetUpRing(int actors)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(actors, 1);
        _laps = new RingLaps(_signal);
        _ring = new TRef[actors];
        _hops = new DeliveryCount[actors];
        for (var i = 0; i < actors; i++)
        {
            _hops[i] = new DeliveryCount();
            _ring[i] = SpawnRelay(_hops[i], i == 0 ? _laps : null);
        }

        for (var i = 0; i < actors; i++)
        {
            Send(_ring[i], new Link<TRef>(_ring[(i + 1) % actors]));
        }

        Handshake(RunRing(1, allAtOnce: false), new RunTotals(actors, 1), "ring");
    }

    /// <summary>
    /// The benchmark thread injects the run's tokens at member 1 (the starter's successor), so each lap is N hops that end
    /// at the starter, and a run delivers exactly N × M.
    /// </summary>
    public RunTotals RunRing(int messages, bool allAtOnce, LatencyRecorder? pacedBy = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(messages, 1);
        var laps = _laps ?? throw new InvalidOperationException("The ring was not set up.");
        if (pacedBy is not null && !allAtOnce)
        {
            throw new ArgumentException("A paced ring sends every token on the schedule: all at once.", nameof(pacedBy));
        }

        var tokens = TokensUpTo(messages);
        laps.Arm(tokens, messages, allAtOnce, pacedBy);
        foreach (var hops in _hops)
        {
            hops.Reset();
        }

        _signal.Arm(1, sharedMessages: 0);
        var first = _ring[1 % _ring.Length];
        for (var i = 0; i < (allAtOnce ? messages : 1); i++)
        {
            pacedBy?.Schedule.AwaitDue(i);
            Send(first, tokens[i]);
        }

        Wait($"Ring of {_ring.Length} × {messages} {(allAtOnce ? "all at once" : "one at a time")}", RingTotals);
        return RingTotals();
    }

    public void Dispose()
    {
        ShutDown();
        _signal.Dispose();
    }

    /// <summary>Spawns a pinger that plays <paramref name="tally"/>'s game with the actor it is linked to.</summary>
    protected abstract TRef SpawnPinger(PingerTally tally);

    /// <summary>
    /// Spawns an actor that counts each token and sends it on to the actor it is linked to; with <paramref name="laps"/>
    /// (the ring's starter) it ends the token's lap instead and sends on what that returns.
    /// </summary>
    protected abstract TRef SpawnRelay(DeliveryCount count, RingLaps? laps);

    /// <summary>Sends from outside any actor (the benchmark thread), with no sender.</summary>
    protected abstract void Send(TRef to, object message);

    /// <summary>Shuts the actor system down, waiting a bounded time.</summary>
    protected abstract void ShutDown();

    private static void Handshake(RunTotals actual, RunTotals expected, string game)
    {
        if (actual != expected)
        {
            throw new InvalidOperationException($"The {game} handshake delivered {actual}, expected {expected}.");
        }
    }

    private static Token[] TokensUpTo(long count) => Token.Shared(count);

    /// <summary>Waits for the run's signal; a run stuck past the limit fails with what had arrived (read racily: a diagnosis).</summary>
    private void Wait(string what, Func<RunTotals> soFar)
    {
        try
        {
            _signal.Wait(what);
        }
        catch (TimeoutException stuck)
        {
            var totals = soFar();
            throw new TimeoutException($"{stuck.Message} Delivered so far: {totals.Delivered}, checksum {totals.Checksum}.", stuck);
        }
    }

    private RunTotals PingPongTotals()
    {
        long delivered = 0, checksum = 0;
        foreach (var (_, tally, pings) in _pairs)
        {
            delivered += tally.Received + pings.Value;
            checksum += tally.Checksum;
        }

        return new RunTotals(delivered, checksum);
    }

    private RunTotals RingTotals()
    {
        long delivered = 0;
        foreach (var hops in _hops)
        {
            delivered += hops.Value;
        }

        return new RunTotals(delivered, _laps?.Checksum ?? 0);
    }
}
