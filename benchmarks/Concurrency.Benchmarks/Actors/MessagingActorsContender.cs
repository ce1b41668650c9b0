using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Our actors (<see cref="ActorSystem"/>) with one mailbox kind. Messages are <see cref="long"/> sequence or token numbers
/// told by value, so no message is allocated. Each actor counts what it received in its own field (only its turns touch
/// it); the benchmark thread reads the counts after the run's last delivery set the done signal, which every earlier
/// delivery happened before.
/// </summary>
internal sealed class MessagingActorsContender(MailboxKind mailbox, int? throughput = null) : IActorContender
{
    private static readonly TimeSpan RunTimeout = TimeSpan.FromSeconds(60);

    private readonly ActorSystem _system = new(throughput is int t ? new ActorSystemOptions { Throughput = t } : null);
    private readonly ManualResetEventSlim _done = new();
    private Pinger[] _pingers = [];
    private ActorRef<long>[] _pingerRefs = [];
    private Ponger[] _pongers = [];
    private RingMember[] _ring = [];
    private ActorRef<long>[] _ringRefs = [];

    private ActorOptions Options => new() { Mailbox = mailbox };

    public void SetUpPingPong(int pairs, int inFlight)
    {
        _pingers = new Pinger[pairs];
        _pongers = new Ponger[pairs];
        var pingerRefs = _pingerRefs = new ActorRef<long>[pairs];
        var pongerRefs = new ActorRef<long>[pairs];
        for (var i = 0; i < pairs; i++)
        {
            var pinger = _pingers[i] = new Pinger(this, inFlight);
            var ponger = _pongers[i] = new Ponger();
            pingerRefs[i] = _system.Spawn<long>(() => pinger, Options);
            pongerRefs[i] = _system.Spawn<long>(() => ponger, Options);
            pinger.Partner = pongerRefs[i];
            ponger.Partner = pingerRefs[i];
        }

        // Handshake: one round trip per pair, so every actor has run a turn before timing starts.
        RunPingPong(1);
    }

    public RunTotals RunPingPong(long roundTripsPerPair)
    {
        _done.Reset();
        _pendingPairs = _pingers.Length;
        foreach (var ponger in _pongers)
        {
            ponger.Received = 0;
        }

        for (var i = 0; i < _pingers.Length; i++)
        {
            _pingers[i].Arm(roundTripsPerPair);
            _pingerRefs[i].Tell(Pinger.Start);
        }

        Wait("ping-pong");
        long delivered = 0, checksum = 0;
        for (var i = 0; i < _pingers.Length; i++)
        {
            delivered += _pingers[i].Received + _pongers[i].Received;
            checksum += _pingers[i].Checksum;
        }

        return new RunTotals(delivered, checksum);
    }

    public void SetUpRing(int actors)
    {
        _ring = new RingMember[actors];
        _ringRefs = new ActorRef<long>[actors];
        for (var i = 0; i < actors; i++)
        {
            var member = _ring[i] = new RingMember(this, isStarter: i == 0);
            _ringRefs[i] = _system.Spawn<long>(() => member, Options);
        }

        for (var i = 0; i < actors; i++)
        {
            _ring[i].Next = _ringRefs[(i + 1) % actors];
        }

        RunRing(1, allAtOnce: false); // handshake: one lap
    }

    public RunTotals RunRing(int messages, bool allAtOnce)
    {
        _done.Reset();
        foreach (var member in _ring)
        {
            member.Received = 0;
        }

        var starter = _ring[0];
        starter.Arm(messages, allAtOnce);
        var first = _ringRefs[1 % _ring.Length];
        if (allAtOnce)
        {
            for (var token = 1; token <= messages; token++)
            {
                first.Tell(token);
            }
        }
        else
        {
            first.Tell(1);
        }

        Wait("ring");
        long hops = 0;
        foreach (var member in _ring)
        {
            hops += member.Received;
        }

        return new RunTotals(hops, starter.Checksum);
    }

    public void Dispose()
    {
        _system.ShutdownAsync().Wait(RunTimeout);
        _done.Dispose();
    }

    private int _pendingPairs; // Interlocked: pairs whose pinger has not yet seen its last pong

    private void PairDone()
    {
        if (Interlocked.Decrement(ref _pendingPairs) == 0)
        {
            _done.Set();
        }
    }

    private void Wait(string what)
    {
        if (!_done.Wait(RunTimeout))
        {
            throw new TimeoutException($"Our {mailbox} actors: the {what} run did not finish within {RunTimeout.TotalSeconds} s.");
        }
    }

    /// <summary>Keeps its window of pings in flight until its quota is sent; counts pongs and sums their sequence numbers.</summary>
    private sealed class Pinger(MessagingActorsContender owner, int inFlight) : Actor<long>
    {
        public const long Start = -1;

        private long _quota;   // set by the benchmark thread before the Start message, which publishes it
        private long _sent;    // turn

        public ActorRef<long>? Partner { get; set; }

        public long Received { get; private set; } // turn; read after the run

        public long Checksum { get; private set; } // turn; read after the run

        public void Arm(long quota) => _quota = quota;

        protected override void Receive(long message)
        {
            if (message == Start)
            {
                Received = 0;
                Checksum = 0;
                _sent = 0;
                var window = Math.Min(inFlight, _quota);
                for (var i = 0; i < window; i++)
                {
                    Partner!.Tell(++_sent);
                }

                return;
            }

            Received++;
            Checksum += message;
            if (_sent < _quota)
            {
                Partner!.Tell(++_sent);
            }
            else if (Received == _quota)
            {
                owner.PairDone();
            }
        }
    }

    /// <summary>Returns each ping as a pong with the same sequence number.</summary>
    private sealed class Ponger : Actor<long>
    {
        public ActorRef<long>? Partner { get; set; }

        public long Received { get; set; } // turn; reset by the benchmark thread between runs, read after a run

        protected override void Receive(long message)
        {
            Received++;
            Partner!.Tell(message);
        }
    }

    /// <summary>Forwards each token to the next member; the starter ends laps, counts them and starts the next.</summary>
    private sealed class RingMember(MessagingActorsContender owner, bool isStarter) : Actor<long>
    {
        private int _laps;       // turn (starter): laps to complete in this run
        private bool _allAtOnce; // set by the benchmark thread before the first token, which publishes it

        public ActorRef<long>? Next { get; set; }

        public long Received { get; set; } // turn; reset between runs, read after a run

        public long Checksum { get; private set; } // turn (starter): the sum of the tokens that completed a lap

        private int _completed; // turn (starter)

        public void Arm(int laps, bool allAtOnce)
        {
            _laps = laps;
            _allAtOnce = allAtOnce;
            _completed = 0;
            Checksum = 0;
        }

        protected override void Receive(long token)
        {
            Received++;
            if (!isStarter)
            {
                Next!.Tell(token);
                return;
            }

            _completed++;
            Checksum += token;
            if (_completed == _laps)
            {
                owner._done.Set();
            }
            else if (!_allAtOnce)
            {
                Next!.Tell(token + 1); // the next lap carries the next token number
            }
        }
    }
}
