using System.Diagnostics;
using System.Security.Cryptography;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The sessions a server remembers, by the id it issued. A stream that presents no id, one this server does not know, or
/// one issued to another identity, gets a new session with a new id (128 random bits), so no stream can attach to another
/// client's session without having been given its id and its credentials. A session is forgotten when its client closes
/// its stream cleanly, or <see cref="PeerServerOptions.SessionRetention"/> after its last stream broke (swept on a timer).
/// To make room for a new one, at <see cref="PeerServerOptions.MaxSessionsPerIdentity"/> the identity's own idle sessions
/// go first, and at <see cref="PeerServerOptions.MaxSessions"/> any idle session; either way in the order of what losing
/// it costs its client (<see cref="Standing"/>: sessions that never acknowledged a reply, then sessions that owe their
/// client nothing, and last those whose replies are not all acknowledged), the one idle longest first within each. With
/// no idle session to forget, a new stream is refused. Attach and Detach are O(1) under the lock.
/// </summary>
internal sealed class PeerSessions : IDisposable
{
    private readonly PeerServerState _state;
    private readonly long _retentionMs;
    private readonly int _perIdentity;
    private readonly ITimer _sweep;

    // Guards _byId, _idle and _groups, and each session's place in the idle lists.
    private readonly Lock _lock = new();
    private readonly Dictionary<string, PeerSession> _byId = new(StringComparer.Ordinal);

    // Sessions with no stream open, server-wide (through PeerSession.IdleNode). Guarded by _lock.
    private readonly IdleLists _idle = new(static session => session.IdleNode);

    // Each identity's sessions (through PeerSession.GroupNode). Guarded by _lock. The identities come from the options,
    // so the map stays small.
    private readonly Dictionary<string, Group> _groups = new(StringComparer.Ordinal);

    public PeerSessions(PeerServerState state)
    {
        _state = state;
        var retention = state.Options.SessionRetention;
        _retentionMs = (long)retention.TotalMilliseconds;
        _perIdentity = state.Options.SessionsPerIdentity;
        var period = TimeSpan.FromMilliseconds(Math.Clamp(retention.TotalMilliseconds / 4, 50, 30_000));
        _sweep = TimeProvider.System.CreateTimer(static sessions => ((PeerSessions)sessions!).Sweep(), this, period, period);
    }

    /// <summary>What forgetting an idle session costs its client, in the order sessions are forgotten to make room.</summary>
    internal enum Standing
    {
        /// <summary>It never acknowledged a reply: no sign of a client that keeps its session (the churner's kind).</summary>
        Fresh,

        /// <summary>Every reply it was sent is acknowledged: its client loses nothing but de-duplication of what is on its way.</summary>
        Settled,

        /// <summary>Replies it was sent are not all acknowledged: forgotten, a resend of their requests would be handled again.</summary>
        Owing,
    }

    /// <summary>Gets the sessions with no stream open.</summary>
    public int IdleCount
    {
        get
        {
            lock (_lock)
            {
                return _idle.Count;
            }
        }
    }

    public int Count
    {
        get
        {
            lock (_lock)
            {
                return _byId.Count;
            }
        }
    }

    /// <summary>Whether the server remembers the session <paramref name="id"/> names.</summary>
    public bool Contains(string id)
    {
        lock (_lock)
        {
            return _byId.ContainsKey(id);
        }
    }

    /// <summary>Attaches a stream of the shared identity (see <see cref="Attach(string?, string, out bool)"/>).</summary>
    public PeerSession? Attach(string? presented) => Attach(presented, BearerTokenInterceptor.SharedIdentity, out _);

    /// <summary>
    /// Attaches a stream of <paramref name="identity"/> to the session <paramref name="presented"/> names, or to a new one
    /// when it names none this server knows for that identity. Null when no idle session could be forgotten to make room:
    /// <paramref name="identityFull"/> says whether the identity's cap, rather than the server's, was the bound.
    /// </summary>
    public PeerSession? Attach(string? presented, string identity, out bool identityFull)
    {
        identityFull = false;
        lock (_lock)
        {
            if (presented is not null && _byId.TryGetValue(presented, out var known) && string.Equals(known.Identity, identity, StringComparison.Ordinal))
            {
                AttachLocked(known);
                return known;
            }

            var group = GroupLocked(identity);
            if (group.Count >= _perIdentity)
            {
                if (group.Idle.First is not { } own)
                {
                    identityFull = _perIdentity < _state.Options.MaxSessions;
                    return null;
                }

                ForgetLocked(own);
            }
            else if (_byId.Count >= _state.Options.MaxSessions)
            {
                if (_idle.First is not { } any)
                {
                    return null;
                }

                ForgetLocked(any);
            }

            var session = new PeerSession(Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(16)), identity, _state);
            _byId.Add(session.Id, session);
            group.Count++;
            AttachLocked(session);
            AssertInvariants();
            return session;
        }
    }

    /// <summary>Detaches a stream; when the client ended it cleanly and no other stream of the session is open, forgets the session.</summary>
    public void Detach(PeerSession session, bool clientClosed)
    {
        lock (_lock)
        {
            if (session.Detach() != 0 || !_byId.ContainsKey(session.Id))
            {
                return;
            }

            if (clientClosed)
            {
                ForgetLocked(session);
            }
            else
            {
                var standing = session.Standing;
                session.IdleStanding = standing;
                _idle.Add(session, standing);
                _groups[session.Identity].Idle.Add(session, standing);
            }

            AssertInvariants();
        }
    }

    public void Dispose() => _sweep.Dispose();

    // The timer: forgets the sessions idle longer than the retention, oldest first in each standing.
    private void Sweep()
    {
        var now = Environment.TickCount64;
        lock (_lock)
        {
            foreach (var list in _idle.Lists)
            {
                while (list.First is { } longest && now - longest.Value.LastActive > _retentionMs)
                {
                    ForgetLocked(longest.Value);
                }
            }
        }
    }

    private Group GroupLocked(string identity)
    {
        if (!_groups.TryGetValue(identity, out var group))
        {
            group = new Group();
            _groups.Add(identity, group);
        }

        return group;
    }

    private void AttachLocked(PeerSession session)
    {
        if (session.IdleNode.List is not null)
        {
            _idle.Remove(session);
            _groups[session.Identity].Idle.Remove(session);
        }

        session.Attach();
    }

    // Drops a session no stream uses and gives its remembered bytes back to the server's budget.
    private void ForgetLocked(PeerSession session)
    {
        var group = _groups[session.Identity];
        if (session.IdleNode.List is not null)
        {
            _idle.Remove(session);
            group.Idle.Remove(session);
        }

        _byId.Remove(session.Id);
        group.Count--;
        Debug.Assert(group.Count >= 0, "an identity's sessions are counted once each");
        session.Clear();
    }

    [Conditional("DEBUG")]
    private void AssertInvariants()
    {
        Debug.Assert(_lock.IsHeldByCurrentThread, "the registry's state is read under its lock");
        Debug.Assert(_idle.Count <= _byId.Count, "every idle session is a known one");
        Debug.Assert(_groups.Values.Sum(group => group.Count) == _byId.Count, "every session counts in its identity's group");
    }

    /// <summary>One identity's sessions: how many, and those idle. Guarded by the registry's lock.</summary>
    private sealed class Group
    {
        public Group() => Idle = new IdleLists(static session => session.GroupNode);

        public int Count { get; set; }

        public IdleLists Idle { get; }
    }

    /// <summary>
    /// Idle sessions, one list per <see cref="Standing"/>, each the one idle longest first (sessions join at the end as they
    /// go idle). Each session is in one list at a time, through the node the selector picks. Guarded by the registry's lock.
    /// </summary>
    private sealed class IdleLists(Func<PeerSession, LinkedListNode<PeerSession>> node)
    {
        private readonly LinkedList<PeerSession>[] _lists = [new(), new(), new()];

        public IReadOnlyList<LinkedList<PeerSession>> Lists => _lists;

        public int Count => _lists[0].Count + _lists[1].Count + _lists[2].Count;

        /// <summary>Gets the session to forget first: the one idle longest of the cheapest standing; null if none is idle.</summary>
        public PeerSession? First => (_lists[0].First ?? _lists[1].First ?? _lists[2].First)?.Value;

        public void Add(PeerSession session, Standing standing) => _lists[(int)standing].AddLast(node(session));

        public void Remove(PeerSession session) => _lists[(int)session.IdleStanding].Remove(node(session));
    }
}
