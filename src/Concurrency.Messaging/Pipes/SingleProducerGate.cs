using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// Lets one thread at a time publish into single-producer rings, with no fence and no atomic instruction on the owning
/// thread's path, and closes atomically with publishing.
/// </summary>
/// <remarks>
/// <para>
/// The rule: a post reads the owner's state, raises that state's in-flight flag, reads the owner and the closed flag again,
/// publishes, and lowers the flag, all with plain stores and loads. Whoever changes the owner or closes writes the change,
/// issues a process-wide barrier, then waits for the previous owner's flag to drop. The barrier makes this an asymmetric
/// Dekker: either the changer sees the post in flight and waits for it, or the post sees the change and backs off without
/// publishing. It costs microseconds, paid only when the posting thread changes and when the pipe closes. Each owner raises
/// only its own flag (<see cref="PosterState"/>), so a thread that lost ownership cannot hide the new owner's post.
/// </para>
/// <para>
/// A thread that finds the owner's post in flight has posted concurrently with it. A pipe declared for one producer throws;
/// an Rx operator, which must tolerate what Rx's own ObserveOn tolerates, switches for good to posting under a lock. After
/// <see cref="HandoffsBeforeLock"/> orderly hand-offs (a source that hops threads between notifications) an operator also
/// switches to the lock, whose cost per post is smaller than a barrier per hop; a pipe keeps paying the barrier per hop, so
/// that it goes on detecting a second producer.
/// </para>
/// </remarks>
internal struct SingleProducerGate
{
    private const int HandoffsBeforeLock = 16;

    private PosterState? _owner;       // whose fast path is open: a thread's state, _locked (every post takes _lock), or null
    private PosterState _locked;       // the state posts made under _lock share; its flag is written by the lock's holder
    private Lock _lock;                // serializes hand-offs, the close, and every post once _owner is _locked
    private int _closed;               // 0 → 1 once, by Close (under _lock)
    private int _handoffs;             // guarded by _lock
    private bool _tolerateConcurrent;  // set once by Initialize: serialize concurrent posters instead of throwing
    private bool _overlapSeen;         // set under _lock once a hand-off found the owner's post in flight

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

    /// <summary>Gets whether a hand-off ever found the owner's post in flight: two threads posted at once.</summary>
    public readonly bool OverlapSeen => Volatile.Read(in _overlapSeen);

    public void Initialize(bool tolerateConcurrent)
    {
        _lock = new Lock();
        _locked = new PosterState(null);
        _tolerateConcurrent = tolerateConcurrent;
    }

    /// <summary>The owner's fast path.</summary>
    /// <returns><see langword="true"/>: publish, then call <see cref="Exit"/> with <paramref name="state"/>.
    /// <see langword="false"/>: call <see cref="EnterSlow"/>.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public readonly bool TryEnter(object thread, out PosterState state)
    {
        state = Volatile.Read(in _owner)!;
        if (state is null || !ReferenceEquals(state.Thread, thread))
        {
            return false;
        }

        Volatile.Write(ref state.InFlight, 1);
        if (ReferenceEquals(Volatile.Read(in _owner), state) && Volatile.Read(in _closed) == 0)
        {
            return true;
        }

        Volatile.Write(ref state.InFlight, 0);
        return false;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Exit(PosterState state) => Volatile.Write(ref state.InFlight, 0);

    /// <summary>The slow path: takes ownership (detecting a concurrent poster on the way), or enters the lock.</summary>
    /// <exception cref="InvalidOperationException">The owner was posting at the same moment and concurrent posters are not tolerated.</exception>
    public Entry EnterSlow(object thread)
    {
        _lock.Enter();
        var keep = false;
        try
        {
            if (Volatile.Read(ref _closed) != 0)
            {
                return Entry.Closed;
            }

            var owner = Volatile.Read(ref _owner);
            if (owner != _locked && !ReferenceEquals(owner?.Thread, thread))
            {
                HandOff(owner, thread);
            }

            if (Volatile.Read(ref _owner) != _locked)
            {
                return Entry.Owner;
            }

            // Under the lock no other post is in flight, and the close (which takes the lock too) has not begun.
            Volatile.Write(ref _locked.InFlight, 1);
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
        Volatile.Write(ref _locked.InFlight, 0);
        _lock.Exit();
    }

    /// <summary>Refuses every later post and returns once no post is in flight: everything accepted is published.</summary>
    public void Close()
    {
        lock (_lock)
        {
            Volatile.Write(ref _closed, 1);
            Interlocked.MemoryBarrierProcessWide();
            if (Volatile.Read(ref _owner) is { } owner)
            {
                WaitForPostInFlight(owner);
            }
        }
    }

    private static InvalidOperationException ConcurrentPosters()
        => new("Two threads posted to a single-producer pipe at the same time. A Ring pipe takes one producer at a time: "
            + "serialize the posts, or use a kind that accepts several producers (PipeOptions.Producers > 1).");

    private static void WaitForPostInFlight(PosterState state)
    {
        var spinner = default(SpinWait);
        while (Volatile.Read(ref state.InFlight) != 0)
        {
            spinner.SpinOnce(sleep1Threshold: -1);
        }
    }

    /// <summary>Under the lock: moves ownership from <paramref name="previous"/> to <paramref name="thread"/>, or to the lock.</summary>
    private void HandOff(PosterState? previous, object thread)
    {
        if (previous is not null)
        {
            // From here no post can pass the owner check; the barrier makes sure a post that already passed it is seen.
            Volatile.Write(ref _owner, null);
            Interlocked.MemoryBarrierProcessWide();
            if (Volatile.Read(ref previous.InFlight) != 0)
            {
                // The owner is posting while this thread posts: concurrent producers. Let its post land first.
                Volatile.Write(ref _overlapSeen, true);
                WaitForPostInFlight(previous);
                if (!_tolerateConcurrent)
                {
                    throw ConcurrentPosters();
                }

                Volatile.Write(ref _owner, _locked);
                return;
            }
        }

        var toLock = _tolerateConcurrent && ++_handoffs > HandoffsBeforeLock;
        Volatile.Write(ref _owner, toLock ? _locked : new PosterState(thread));
    }
}
