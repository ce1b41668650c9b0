namespace Concurrency.Messaging.Tests.Regressions;

/// <summary>
/// One counter per message id, so a loss balanced by a duplicate still shows, plus a flag per id that says the sender
/// counts it as sent (a completed write or an accepted post). Thread-safe; audited once traffic has stopped.
/// </summary>
internal sealed class IdLedger(int capacity)
{
    private readonly int[] _seen = new int[capacity];
    private readonly byte[] _issued = new byte[capacity];
    private readonly byte[] _excused = new byte[capacity];
    private long _recorded;

    public int Capacity => _seen.Length;

    /// <summary>Gets how many receipts were recorded, duplicates included.</summary>
    public long Recorded => Interlocked.Read(ref _recorded);

    /// <summary>Records one receipt of <paramref name="id"/>.</summary>
    /// <returns>How many times the id has now been received.</returns>
    public int Record(int id)
    {
        Interlocked.Increment(ref _recorded);
        return Interlocked.Increment(ref _seen[id]);
    }

    /// <summary>Marks <paramref name="id"/> as sent: from now on it must be received exactly once.</summary>
    public void Issue(int id) => Volatile.Write(ref _issued[id], (byte)1);

    /// <summary>Marks every id below <paramref name="count"/> as sent.</summary>
    public void IssueBelow(long count)
    {
        for (var id = 0; id < count; id++)
        {
            _issued[id] = 1;
        }

        Interlocked.MemoryBarrier();
    }

    /// <summary>Marks <paramref name="id"/> as neither sent nor unsent: its sender saw an exception mid-write.</summary>
    public void Excuse(int id) => Volatile.Write(ref _excused[id], (byte)1);

    public int Seen(int id) => Volatile.Read(ref _seen[id]);

    public LedgerAudit Audit()
    {
        long issued = 0, missing = 0, duplicated = 0, phantoms = 0, excused = 0;
        var firstMissing = new List<int>();
        for (var id = 0; id < _seen.Length; id++)
        {
            var seen = Volatile.Read(ref _seen[id]);
            if (Volatile.Read(ref _excused[id]) != 0)
            {
                excused++;
                continue;
            }

            if (Volatile.Read(ref _issued[id]) == 0)
            {
                phantoms += seen;
                continue;
            }

            issued++;
            if (seen == 0)
            {
                missing++;
                if (firstMissing.Count < 10)
                {
                    firstMissing.Add(id);
                }
            }
            else
            {
                duplicated += seen - 1;
            }
        }

        return new LedgerAudit(issued, missing, duplicated, phantoms, excused, firstMissing);
    }
}

/// <summary>What a ledger found: ids sent, sent but never received, received more than once, received but never sent.</summary>
internal sealed record LedgerAudit(long Issued, long Missing, long Duplicated, long Phantoms, long Excused, IReadOnlyList<int> FirstMissing)
{
    public bool ExactlyOnce => Missing == 0 && Duplicated == 0 && Phantoms == 0;

    public override string ToString()
        => $"sent {Issued:N0}, missing {Missing}, duplicated {Duplicated}, never sent but received {Phantoms}, excused {Excused}"
           + (FirstMissing.Count == 0 ? string.Empty : $" (first missing ids: {string.Join(", ", FirstMissing)})");
}
