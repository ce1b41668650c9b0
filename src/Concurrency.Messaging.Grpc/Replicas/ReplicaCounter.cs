using System.Diagnostics;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A replica's counter: hands out identities, takes updates and synchronizations, and never hands out a counter it has
/// not first reserved durably. Reservations are a block at a time (one fsync per block), the next one started when half
/// of the current block is left, so that a request waits for the disk only when the counter jumps (an update, a client's
/// floor, or a synchronization past the block) or the disk is slower than the requests.
/// </summary>
/// <remarks>
/// Concurrency: every field is guarded by <c>_gate</c>. One reservation at a time, by construction: only
/// <see cref="Reserve"/> starts one, and only when none is in flight; the one in flight, when it ends, serves the waiters
/// it covers and starts the next for the rest. Its write runs off the lock, and the waiters it releases are completed off
/// it (their continuations run asynchronously, never under the lock).
/// </remarks>
internal sealed class ReplicaCounter
{
    private readonly object _gate = new();
    private readonly int _replica;
    private readonly long _block;
    private readonly long _maxJump;
    private readonly Func<long, Task> _reserve;
    private readonly Queue<Waiter> _waiting = new(); // requests that need a reservation not yet durable, in arrival order

    private long _counter;   // the largest counter handed out, raised to by a synchronization or an update, or reserved before a restart
    private long _reserved;  // every counter up to this one is reserved on disk
    private long _reserving; // the target of the reservation in flight, or 0
    private Task _reservation = Task.CompletedTask; // the reservation in flight (or the last): what a stop waits for before closing the file
    private Exception? _fault; // a reservation failed, or the replica stops: nothing more is handed out
    private long _handedOut;

    /// <param name="replica">The replica's id (the identities' low bits).</param>
    /// <param name="reserved">The durable reservation found at start: every counter up to it may have been handed out before.</param>
    /// <param name="block">How many counters one reservation adds.</param>
    /// <param name="maxJump">The most one request (a floor, an update, a synchronization) may raise the counter by.</param>
    /// <param name="reserve">Makes a reservation durable (writes and fsyncs the checkpoint); called one at a time, off the lock.</param>
    /// <param name="records">Where the counter's changes are recorded for measuring staleness, or null.</param>
    public ReplicaCounter(int replica, long reserved, long block, long maxJump, Func<long, Task> reserve, CounterRecords? records = null)
    {
        Debug.Assert(block > 0 && reserved >= 0 && maxJump > 0, "A positive block and bound, a reservation of 0 or more.");
        _replica = replica;
        _block = block;
        _maxJump = maxJump;
        _reserve = reserve;
        _counter = reserved;
        _reserved = reserved;
        Records = records;
    }

    /// <summary>Gets the counter's records, if it keeps them.</summary>
    public CounterRecords? Records { get; }

    /// <summary>Gets the counter now: the value a synchronization carries.</summary>
    public long Counter
    {
        get
        {
            lock (_gate)
            {
                return _counter;
            }
        }
    }

    /// <summary>Gets the durable reservation now.</summary>
    public long Reserved
    {
        get
        {
            lock (_gate)
            {
                return _reserved;
            }
        }
    }

    /// <summary>Gets how many identities were handed out since start.</summary>
    public long HandedOut => Interlocked.Read(ref _handedOut);

    /// <summary>
    /// Hands out the next identity, larger than <paramref name="floor"/> (the caller's last identity, or 0): synchronously
    /// while the reservation covers it.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The floor is more than the bound past the counter (not an identity this cluster handed out lately).</exception>
    /// <exception cref="InvalidOperationException">No counter is left.</exception>
    /// <exception cref="IOException">A reservation failed earlier: the replica hands out nothing more.</exception>
    public ValueTask<long> NextAsync(long floor)
    {
        Waiter waiter;
        lock (_gate)
        {
            ThrowIfFaulted();
            var needed = Needed(Math.Max(_counter, Bounded(ReplicaIdentity.CounterOf(floor), "floor")) + 1);
            if (_waiting.Count == 0 && needed <= _reserved)
            {
                return new ValueTask<long>(Take(needed));
            }

            waiter = new Waiter(floor, isUpdate: false);
            _waiting.Enqueue(waiter);
            Reserve(needed + _block - 1);
        }

        return new ValueTask<long>(waiter.Task);
    }

    /// <summary>
    /// Raises the counter so that every identity handed out after this completes is larger than <paramref name="value"/>;
    /// completes once that is durable (a restart keeps it).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is more than the bound past the counter.</exception>
    /// <exception cref="IOException">A reservation failed earlier.</exception>
    public ValueTask UpdateAsync(long value)
    {
        Debug.Assert(value >= 0, "Checked by the caller.");
        Waiter waiter;
        lock (_gate)
        {
            ThrowIfFaulted();
            var needed = Bounded(ReplicaIdentity.CounterOf(value), "update");
            _counter = Math.Max(_counter, needed);
            if (needed <= _reserved)
            {
                return ValueTask.CompletedTask;
            }

            waiter = new Waiter(value, isUpdate: true);
            _waiting.Enqueue(waiter);
            Reserve(needed + _block - 1);
        }

        return new ValueTask(waiter.Task);
    }

    /// <summary>
    /// Keeps the larger of the counter and <paramref name="counter"/> (a peer's, in a synchronization), raising it by at
    /// most the bound per call (a peer far ahead is caught up with over several exchanges), and returns it.
    /// </summary>
    public long Raise(long counter)
    {
        lock (_gate)
        {
            var raised = Math.Min(Math.Min(counter, _counter + _maxJump), ReplicaIdentity.MaxCounter);
            if (raised > _counter)
            {
                _counter = raised;
                Records?.Add(_counter);
                Prefetch(); // so that the next request does not wait for the disk
            }

            return _counter;
        }
    }

    /// <summary>
    /// Fails every request still waiting for a reservation and hands out nothing more (the replica is stopping, or found
    /// its id in use); the task finishes when the reservation in flight, if any, has ended, after which the checkpoint may
    /// be closed.
    /// </summary>
    public Task StopAsync(Exception reason)
    {
        Task reservation;
        Waiter[] failed;
        lock (_gate)
        {
            _fault ??= reason;
            failed = [.. _waiting];
            _waiting.Clear();
            reservation = _reservation;
        }

        foreach (var waiter in failed)
        {
            waiter.TrySetException(reason);
        }

        return reservation;
    }

    /// <summary>Writes the records, if the counter keeps them (a copy taken under the lock: exchanges may still raise it).</summary>
    public void WriteRecords(string path)
    {
        CounterRecords? copy;
        lock (_gate)
        {
            copy = Records?.Copy();
        }

        copy?.WriteTo(path);
    }

    // Under _gate: the counter a request needs, or the exception that says none is left.
    private long Needed(long next)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "Under the gate.");
        return next <= ReplicaIdentity.MaxCounter
            ? next
            : throw new InvalidOperationException($"Replica {_replica} has no identity left: its counter reached {ReplicaIdentity.MaxCounter:N0}.");
    }

    // Under _gate: a counter a request asks for, refused when it is more than the bound past this replica's.
    private long Bounded(long asked, string what)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "Under the gate.");
        return asked - _counter <= _maxJump
            ? asked
            : throw new ArgumentOutOfRangeException(what, asked, $"Replica {_replica} refuses a {what} of counter {asked:N0}: more than {_maxJump:N0} past its own ({_counter:N0}), so not an identity this cluster handed out lately; a client or peer sending it would spend the cluster's counters.");
    }

    // Under _gate, with `next` reserved: hands it out.
    private long Take(long next)
    {
        Debug.Assert(Monitor.IsEntered(_gate) && next <= _reserved && next > _counter, "A reserved counter past the last.");
        _counter = next;
        _handedOut++;
        Records?.Sample(next);
        Prefetch();
        return ReplicaIdentity.Compose(next, _replica);
    }

    // Under _gate: the next block, once half of this one is spent.
    private void Prefetch()
    {
        if (_reserved - _counter < _block / 2)
        {
            Reserve(Math.Max(_reserved, _counter) + _block);
        }
    }

    // Under _gate: starts a reservation up to `target` unless one is in flight (its end serves what it covers and calls
    // this again for the rest), nothing more is needed, or the counter is stopped.
    private void Reserve(long target)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "Under the gate.");
        target = Math.Min(target, ReplicaIdentity.MaxCounter);
        if (_reserving != 0 || _fault is not null || target <= _reserved)
        {
            return;
        }

        _reserving = target;
        _reservation = Task.Run(async () =>
        {
            Exception? failure = null;
            try
            {
                await _reserve(target).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                failure = new IOException($"Replica {_replica} could not reserve identities up to counter {target:N0} on disk; it hands out no more.", e);
            }

            OnReserved(target, failure);
        });
    }

    private void OnReserved(long target, Exception? failure)
    {
        List<(Waiter Waiter, long Identity, Exception? Error)> outcomes = [];
        lock (_gate)
        {
            Debug.Assert(_reserving == target, "The reservation that ends is the one in flight.");
            _reserving = 0;
            if (failure is not null)
            {
                _fault ??= failure;
                outcomes.AddRange(_waiting.Select(waiter => (waiter, 0L, (Exception?)failure)));
                _waiting.Clear();
            }
            else
            {
                _reserved = Math.Max(_reserved, target);
                while (_waiting.TryPeek(out var waiter))
                {
                    long needed;
                    try
                    {
                        needed = waiter.IsUpdate ? ReplicaIdentity.CounterOf(waiter.Value) : Needed(Math.Max(_counter, ReplicaIdentity.CounterOf(waiter.Value)) + 1);
                    }
                    catch (InvalidOperationException exhausted)
                    {
                        outcomes.Add((_waiting.Dequeue(), 0, exhausted));
                        continue;
                    }

                    if (needed > _reserved)
                    {
                        Reserve(needed + _block - 1); // none is in flight unless a hand-out above started the prefetch: then its end comes back here
                        break;
                    }

                    _waiting.Dequeue();
                    outcomes.Add((waiter, waiter.IsUpdate ? 0 : Take(needed), null));
                }

                Prefetch();
            }
        }

        foreach (var (waiter, identity, error) in outcomes)
        {
            if (error is null)
            {
                waiter.TrySetResult(identity);
            }
            else
            {
                waiter.TrySetException(error);
            }
        }
    }

    private void ThrowIfFaulted()
    {
        if (_fault is not null)
        {
            throw _fault is IOException io ? new IOException(io.Message, io.InnerException) : new ObjectDisposedException(nameof(SequenceReplica), _fault.Message);
        }
    }

    // A request waiting for a reservation: Value is the floor of a next, or the value of an update.
    private sealed class Waiter(long value, bool isUpdate) : TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously)
    {
        public long Value => value;

        public bool IsUpdate => isUpdate;
    }
}
