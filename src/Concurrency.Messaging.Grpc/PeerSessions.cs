using System.Collections.Concurrent;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The sessions a server remembers, by the id the client sends. A session is forgotten when its client closes its
/// stream cleanly, or <see cref="PeerServerOptions.SessionRetention"/> after its last stream broke.
/// </summary>
internal sealed class PeerSessions(TimeSpan retention)
{
    private readonly ConcurrentDictionary<string, PeerSession> _byId = new(StringComparer.Ordinal);
    private readonly long _retentionMs = (long)retention.TotalMilliseconds;

    public int Count => _byId.Count;

    public PeerSession Attach(string id)
    {
        ForgetStale();
        var session = _byId.GetOrAdd(id, static _ => new PeerSession());
        session.Attach();
        return session;
    }

    /// <summary>Detaches a stream; when the client ended it cleanly and no other stream of the session is open, forgets the session.</summary>
    public void Detach(string id, PeerSession session, bool clientClosed)
    {
        if (session.Detach() == 0 && clientClosed)
        {
            _byId.TryRemove(new KeyValuePair<string, PeerSession>(id, session));
        }
    }

    private void ForgetStale()
    {
        var now = Environment.TickCount64;
        foreach (var (id, session) in _byId)
        {
            if (session.Streams == 0 && now - session.LastActive > _retentionMs)
            {
                _byId.TryRemove(new KeyValuePair<string, PeerSession>(id, session));
            }
        }
    }
}
