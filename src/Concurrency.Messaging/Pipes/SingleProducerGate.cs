using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// Lets one thread at a time publish into single-producer rings, with no fence on the owning thread's path, and closes
/// atomically with publishing.
/// </summary>
/// <remarks>
/// <para>
/// The rule: a post raises <see cref="_inFlight"/>, then reads <see cref="_owner"/> and <see cref="_closed"/>, publishes, and
/// lowers <see cref="_inFlight"/>, all with plain stores and loads. Whoever changes the owner or closes writes the change,
/// issues a process-wide barrier, then waits for <see cref="_inFlight"/> to drop. The barrier makes this an asymmetric
/// Dekker: either the changer sees the post in flight and waits for it, or the post sees the change and backs off. The
/// barrier costs microseconds, paid only when the posting thread changes and when the pipe closes.
/// </para>
/// <para>
/// A thread that finds another thread's post in flight has posted concurrently. A pipe declared for one producer throws;
/// an Rx operator, which must tolerate what Rx's own ObserveOn tolerates, switches for good to posting under a lock. After
/// <see cref="HandoffsBeforeLock"/> orderly hand-offs between threads (a source that hops threads between notifications)
/// the gate also switches to the lock, whose cost per post is smaller than a barrier per hop.
/// </para>
/// </remarks>
[StructLayout(LayoutKind.Explicit, Size = 192)]
internal struct SingleProducerGate
{
    private const int Nobody = 0;
    private const int Locked = -1;
    private const int HandoffsBeforeLock = 16;

    [FieldOffset(64)]
    private int _owner;       // the managed thread id allowed on the fast path, Nobody, or Locked (every post takes _lock)

    [FieldOffset(68)]
    private int _inFlight;    // 1 while a post is between its checks and its publish; written only by the posting thread

    [FieldOffset(72)]
    private int _closed;      // 0 → 1 once, by Close

    [FieldOffset(76)]
    private int _handoffs;    // guarded by _lock

    [FieldOffset(80)]
    private bool _tolerateConcurrent; // set once at construction: serialize concurrent posters instead of throwing

    [FieldOffset(88)]
    private Lock _lock;       // serializes the slow path: hand-offs, and every post once Locked

    /// <summary>What <see cref="EnterSlow"/> let the caller do.</summary>
    public enum Entry
    {
        /// <summary>The pipe is closed: refuse the post.</summary>
        Closed,

        /// <summary>The caller owns the gate now: try the fast path again.</summary>
        Owner,

        /// <summary>The caller holds the lock with its post in flight: publish, then call <see cref="ExitLocked"/>.</summary>
        Locked,
    }

    public readonly bool IsClosed => Volatile.Read(in _closed) != 0;

    public void Initialize(bool tolerateConcurrent)
    {
        _lock = new Lock();
        _tolerateConcurrent = tolerateConcurrent;
    }

    /// <summary>The owner's fast path.</summary>
    /// <returns><see langword="true"/>: publish, then call <see cref="Exit"/>. <see langword="false"/>: call <see cref="EnterSlow"/>.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryEnter(int thread)
    {
        Volatile.Write(ref _inFlight, 1);
        if (Volatile.Read(ref _owner) == thread && Volatile.Read(ref _closed) == 0)
        {
            return true;
        }

        Volatile.Write(ref _inFlight, 0);
        return false;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Exit() => Volatile.Write(ref _inFlight, 0);

    /// <summary>The slow path: takes ownership, detects a concurrent poster, or enters the lock.</summary>
    /// <exception cref="InvalidOperationException">Another thread was posting at the same moment and concurrent posters are not tolerated.</exception>
    public Entry EnterSlow(int thread)
    {
        if (!_tolerateConcurrent)
        {
            if (!_lock.TryEnter())
            {
                throw ConcurrentPosters();
            }
        }
        else
        {
            _lock.Enter();
        }

        var keep = false;
        try
        {
            if (Volatile.Read(ref _closed) != 0)
            {
                return Entry.Closed;
            }

            if (Volatile.Read(ref _owner) != Locked && Volatile.Read(ref _owner) != thread)
            {
                HandOff(thread);
            }

            if (Volatile.Read(ref _owner) != Locked)
            {
                return Entry.Owner;
            }

            Volatile.Write(ref _inFlight, 1);
            if (Volatile.Read(ref _closed) != 0)
            {
                Volatile.Write(ref _inFlight, 0);
                return Entry.Closed;
            }

            keep = true;
            return Entry.Locked;
        }
        finally
        {
            if (!keep)
            {
                _lock.Exit();
            }
        }
    }

    /// <summary>Ends a post made under the lock (<see cref="Entry.Locked"/>).</summary>
    public void ExitLocked()
    {
        Volatile.Write(ref _inFlight, 0);
        _lock.Exit();
    }

    /// <summary>Refuses every later post and returns once no post is in flight: everything accepted is published.</summary>
    public void Close()
    {
        Volatile.Write(ref _closed, 1);
        Interlocked.MemoryBarrierProcessWide();
        WaitForPostInFlight();
    }

    private static InvalidOperationException ConcurrentPosters()
        => new("Two threads posted to a single-producer pipe at the same time. A Ring pipe takes one producer at a time: "
            + "serialize the posts, or use a kind that accepts several producers (PipeOptions.Producers > 1).");

    /// <summary>Under the lock: moves ownership from whoever had it to <paramref name="thread"/>, or switches to the lock.</summary>
    private void HandOff(int thread)
    {
        if (Volatile.Read(ref _owner) != Nobody)
        {
            // From here no post can pass the owner check; the barrier makes sure a post that already passed it is seen.
            Volatile.Write(ref _owner, Nobody);
            Interlocked.MemoryBarrierProcessWide();
        }

        if (WaitForPostInFlight())
        {
            // The previous owner was posting while this thread posted: concurrent producers.
            if (!_tolerateConcurrent)
            {
                throw ConcurrentPosters();
            }

            Volatile.Write(ref _owner, Locked);
            return;
        }

        Volatile.Write(ref _owner, ++_handoffs > HandoffsBeforeLock ? Locked : thread);
    }

    /// <returns><see langword="true"/> if a post was in flight (it has landed when this returns).</returns>
    private bool WaitForPostInFlight()
    {
        if (Volatile.Read(ref _inFlight) == 0)
        {
            return false;
        }

        var spinner = default(SpinWait);
        while (Volatile.Read(ref _inFlight) != 0)
        {
            spinner.SpinOnce(sleep1Threshold: -1);
        }

        return true;
    }
}
