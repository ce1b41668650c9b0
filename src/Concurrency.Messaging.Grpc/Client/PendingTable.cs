namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The sends the pump has taken from the buffer and not yet seen answered, by sequence number. The pump adds (a batch at
/// a time), the listener removes what its replies answer, the sweeper removes what is past its deadline; all under
/// <see cref="_gate"/>, held only for dictionary work, never while a task completes.
/// </summary>
internal sealed class PendingTable
{
    private readonly Lock _gate = new();

    // Guarded by _gate.
    private readonly Dictionary<ulong, PendingSend> _bySequence = [];

    // Guarded by _gate: the same sends in the order they were added, which is deadline order give or take the moments
    // between a send's call and its numbering, so the sweeper looks at the oldest only and stops at the first not due.
    // Replies come in sequence order, so the listener drops answered sends from the front as it goes (they must die
    // young, not wait for the sweeper); what waits behind an old unanswered send is bounded by that send's deadline.
    private readonly Queue<PendingSend> _byAge = new();

    // Guarded by _gate: completed (and replaced) when the table becomes empty, so a closing pump can wait for the last reply.
    private EmptyPromise _empty;

    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _bySequence.Count;
            }
        }
    }

    public void Add(List<PendingSend> sends)
    {
        lock (_gate)
        {
            foreach (var send in sends)
            {
                _bySequence.Add(send.Sequence, send);
                _byAge.Enqueue(send);
            }
        }
    }

    /// <summary>Removes the sends these replies answer; <paramref name="found"/> receives them, with null for a reply to none here (a duplicate).</summary>
    public void Remove(List<PeerReply> replies, List<PendingSend?> found)
    {
        lock (_gate)
        {
            foreach (var reply in replies)
            {
                found.Add(_bySequence.Remove(reply.Sequence, out var send) ? send : null);
            }

            TrimAnswered();

            SignalIfEmpty();
        }
    }

    /// <summary>Removes one send (it failed on the pump).</summary>
    public void Forget(PendingSend send)
    {
        lock (_gate)
        {
            _bySequence.Remove(send.Sequence);
            SignalIfEmpty();
        }
    }

    /// <summary>Removes and returns every send, in sequence order.</summary>
    public List<PendingSend> TakeAll()
    {
        lock (_gate)
        {
            var all = Ordered();
            _bySequence.Clear();
            _byAge.Clear();
            SignalIfEmpty();
            return all;
        }
    }

    /// <summary>Returns the sends still open, in sequence order, and removes the ones already settled (a cancelled caller).</summary>
    public List<PendingSend> OpenInOrder()
    {
        lock (_gate)
        {
            var open = new List<PendingSend>(_bySequence.Count);
            foreach (var send in Ordered())
            {
                if (send.IsOpen)
                {
                    open.Add(send);
                }
                else
                {
                    _bySequence.Remove(send.Sequence);
                }
            }

            SignalIfEmpty();
            return open;
        }
    }

    /// <summary>Removes the sends past their deadline (and, on the way, those already settled) and returns the expired ones.</summary>
    public List<PendingSend>? RemoveExpired(long now)
    {
        List<PendingSend>? expired = null;
        lock (_gate)
        {
            while (_byAge.TryPeek(out var oldest))
            {
                var present = _bySequence.TryGetValue(oldest.Sequence, out var send) && ReferenceEquals(send, oldest);
                if (present && oldest.IsOpen && oldest.Deadline > now)
                {
                    break;
                }

                _byAge.Dequeue();
                if (!present)
                {
                    continue;
                }

                _bySequence.Remove(oldest.Sequence);
                if (oldest.IsOpen)
                {
                    (expired ??= []).Add(oldest);
                }
            }

            SignalIfEmpty();
        }

        return expired;
    }

    /// <summary>Returns a task that finishes when the table is empty (at once if it is).</summary>
    public Task WhenEmpty()
    {
        lock (_gate)
        {
            return _empty.WhenEmpty(_bySequence.Count == 0);
        }
    }

    private void TrimAnswered()
    {
        while (_byAge.TryPeek(out var oldest) && !(_bySequence.TryGetValue(oldest.Sequence, out var send) && ReferenceEquals(send, oldest)))
        {
            _byAge.Dequeue();
        }
    }

    private List<PendingSend> Ordered()
    {
        var all = new List<PendingSend>(_bySequence.Values);
        all.Sort(static (a, b) => a.Sequence.CompareTo(b.Sequence));
        return all;
    }

    private void SignalIfEmpty()
    {
        if (_bySequence.Count == 0)
        {
            _empty.Take()?.TrySetResult();
        }
    }
}
