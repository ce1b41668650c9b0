using System.Security.Cryptography;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The sessions a server remembers, by the id it issued. A stream that presents no id, or one this server does not know,
/// gets a new session with a new id (128 random bits), so no stream can attach to another client's session without having
/// been given its id. A session is forgotten when its client closes its stream cleanly, or
/// <see cref="PeerServerOptions.SessionRetention"/> after its last stream broke (swept on a timer); at
/// <see cref="PeerServerOptions.MaxSessions"/> the session idle longest is forgotten first, and with every session in use a
/// new stream is refused.
/// </summary>
internal sealed class PeerSessions : IDisposable
{
    private readonly PeerServerState _state;
    private readonly long _retentionMs;
    private readonly ITimer _sweep;

    // Guards _byId and _idle, and each session's place in _idle.
    private readonly Lock _lock = new();
    private readonly Dictionary<string, PeerSession> _byId = new(StringComparer.Ordinal);

    // Sessions with no stream open, the one idle longest first. Guarded by _lock.
    private readonly LinkedList<PeerSession> _idle = new();

    public PeerSessions(PeerServerState state)
    {
        _state = state;
        var retention = state.Options.SessionRetention;
        _retentionMs = (long)retention.TotalMilliseconds;
        var period = TimeSpan.FromMilliseconds(Math.Clamp(retention.TotalMilliseconds / 4, 50, 30_000));
        _sweep = TimeProvider.System.CreateTimer(static sessions => ((PeerSessions)sessions!).Sweep(), this, period, period);
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

    /// <summary>
    /// Attaches a stream to the session <paramref name="presented"/> names, or to a new one when it names none this server
    /// knows. Null when the server holds its most sessions and every one of them has a stream open.
    /// </summary>
    public PeerSession? Attach(string? presented)
    {
        lock (_lock)
        {
            if (presented is not null && _byId.TryGetValue(presented, out var known))
            {
                AttachLocked(known);
                return known;
            }

            if (_byId.Count >= _state.Options.MaxSessions)
            {
                if (_idle.First is not { } longest)
                {
                    return null;
                }

                ForgetLocked(longest.Value);
            }

            var session = new PeerSession(Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(16)), _state);
            _byId.Add(session.Id, session);
            AttachLocked(session);
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
                _idle.AddLast(session.IdleNode);
            }
        }
    }

    public void Dispose() => _sweep.Dispose();

    // The timer: forgets the sessions idle longer than the retention, oldest first.
    private void Sweep()
    {
        var now = Environment.TickCount64;
        lock (_lock)
        {
            while (_idle.First is { } longest && now - longest.Value.LastActive > _retentionMs)
            {
                ForgetLocked(longest.Value);
            }
        }
    }

    private void AttachLocked(PeerSession session)
    {
        if (session.IdleNode.List is not null)
        {
            _idle.Remove(session.IdleNode);
        }

        session.Attach();
    }

    // Drops a session no stream uses and gives its remembered bytes back to the server's budget.
    private void ForgetLocked(PeerSession session)
    {
        if (session.IdleNode.List is not null)
        {
            _idle.Remove(session.IdleNode);
        }

        _byId.Remove(session.Id);
        session.Clear();
    }
}
