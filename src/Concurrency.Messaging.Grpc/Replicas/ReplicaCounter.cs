using System.Diagnostics;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A replica's counter: hands out identities, takes updates and synchronizations, and never hands out a counter it has
/// not first reserved durably. Reservations are a block at a time (one fsync per block), the next one started when half
/// of the current block is left, so that a request waits for the disk only when the counter jumps (an update, a client's
/// floor, or a synchronization past the block) or the disk is slower than the requests.
/// </summary>
/// <remarks>
/// Concurrency: every field is guarded by <c>_gate</c>; the reservation runs outside it, one at a time, and the waiters
/// it releases are completed outside it (their continuations run asynchronously, never under the lock).
/// </remarks>
internal sealed class ReplicaCounter
{
    private readonly object _gate = new();
    private readonly int _replica;
    private readonly long _block;
    private readonly Func<long, Task> _reserve;
    private readonly Queue<Waiter> _waiting = new(); // requests that need a reservation not yet durable, in arrival order

    private long _counter;   // the largest counter handed out, raised to by a synchronization or an update, or reserved before a restart
    private long _reserved;  // every counter up to this one is reserved on disk
    private long _reserving; // the target of the reservation in flight, or 0
    private Task _reservation = Task.CompletedTask; // the reservation in flight (or the last): what a stop waits for before closing the file
    private Exception? _fault; // a reservation failed: nothing more is handed out (the disk's state is unknown)
    private long _handedOut;

    /// <param name="replica">The replica's id (the identities' low bits).</param>
    /// <param name="reserved">The durable reservation found at start: every counter up to it may have been handed out before.</param>
    /// <param name="block">How many counters one reservation adds.</param>
    /// <param name="reserve">Makes a reservation durable (writes and fsyncs the checkpoint); called one at a time, off the lock.</param>
    /// <param name="records">Where the counter's changes are recorded for measuring staleness, or null.</param>
    public ReplicaCounter(int replica, long reserved, long block, Func<long, Task> reserve, CounterRecords? records = null)
    {
        Debug.Assert(block > 0 && reserved >= 0, "A positive block and a reservation of 0 or more.");
        _replica = replica;
        _block = block;
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
    /// <exception cref="InvalidOperationException">No counter is left.</exception>
    /// <exception cref="IOException">A reservation failed earlier: the replica hands out nothing more.</exception>
    public ValueTask<long> NextAsync(long floor)
    {
        Waiter waiter;
        lock (_gate)
        {
            ThrowIfFaulted();
            if (_waiting.Count == 0 && TryTake(floor, out var identity))
            {
                return new ValueTask<long>(identity);
            }

            waiter = new Waiter(floor, isUpdate: false);
            Wait(waiter, Math.Max(_counter, ReplicaIdentity.CounterOf(floor)) + 1);
        }

        return new ValueTask<long>(waiter.Task);
    }

    /// <summary>
    /// Raises the counter so that every identity handed out after this completes is larger than <paramref name="value"/>;
    /// completes once that is durable (a restart keeps it).
    /// </summary>
    /// <exception cref="IOException">A reservation failed earlier.</exception>
    public ValueTask UpdateAsync(long value)
    {
        Debug.Assert(value >= 0, "Checked by the caller.");
        var needed = Math.Min(ReplicaIdentity.CounterOf(value), ReplicaIdentity.MaxCounter);
        Waiter waiter;
        lock (_gate)
        {
            ThrowIfFaulted();
            _counter = Math.Max(_counter, needed);
            if (needed <= _reserved)
            {
                return ValueTask.CompletedTask;
            }

            waiter = new Waiter(value, isUpdate: true);
            Wait(waiter, needed);
        }

        return new ValueTask(waiter.Task);
    }

    /// <summary>Keeps the larger of the counter and <paramref name="counter"/> (a peer's, in a synchronization) and returns it.</summary>
    public long Raise(long counter)
    {
        lock (_gate)
        {
            if (counter > _counter)
            {
                _counter = Math.Min(counter, ReplicaIdentity.MaxCounter);
                Records?.Add(_counter);

                // Reserve past the raised counter now, so that the next request does not wait for the disk.
                if (_fault is null && _reserving == 0 && _reserved - _counter < _block / 2)
                {
                    StartReservation(_counter + _block);
                }
            }

            return _counter;
        }
    }

    /// <summary>
    /// Fails every request still waiting for a reservation and starts no other (the replica is stopping); the task
    /// finishes when the reservation in flight, if any, has ended, after which the checkpoint may be closed.
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

    // Under _gate, with no one waiting ahead: hands out the counter after max(counter, floor's) if it is reserved.
    private bool TryTake(long floor, out long identity)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "Under the gate.");
        var next = Math.Max(_counter, ReplicaIdentity.CounterOf(floor)) + 1;
        if (next > ReplicaIdentity.MaxCounter)
        {
            throw new InvalidOperationException($"Replica {_replica} has no identity left: its counter reached {ReplicaIdentity.MaxCounter:N0}.");
        }

        if (next > _reserved)
        {
            identity = 0;
            return false;
        }

        _counter = next;
        _handedOut++;
        Records?.Sample(next);
        if (_reserving == 0 && _reserved - next < _block / 2)
        {
            StartReservation(next + _block);
        }

        identity = ReplicaIdentity.Compose(next, _replica);
        return true;
    }

    // Under _gate: queues a request that needs the counter `needed` reserved, and makes sure a reservation will cover it.
    private void Wait(Waiter waiter, long needed)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "Under the gate.");
        _waiting.Enqueue(waiter);
        if (_reserving == 0)
        {
            StartReservation(needed + _block - 1);
        }

        // Otherwise the reservation in flight, when it ends, serves what it covers and starts the next for the rest.
    }

    // Under _gate: one reservation at a time, run off the lock; its end serves the waiters in order.
    private void StartReservation(long target)
    {
        Debug.Assert(Monitor.IsEntered(_gate) && _reserving == 0, "One reservation at a time, started under the gate.");
        if (_fault is not null)
        {
            return; // stopping or failed: the file is closing or its state is unknown
        }

        target = Math.Min(target, ReplicaIdentity.MaxCounter);
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
                    var needed = waiter.IsUpdate
                        ? ReplicaIdentity.CounterOf(waiter.Value)
                        : Math.Max(_counter, ReplicaIdentity.CounterOf(waiter.Value)) + 1;
                    if (needed > ReplicaIdentity.MaxCounter)
                    {
                        outcomes.Add((waiter, 0, new InvalidOperationException($"Replica {_replica} has no identity left: its counter reached {ReplicaIdentity.MaxCounter:N0}.")));
                    }
                    else if (needed > _reserved)
                    {
                        StartReservation(needed + _block - 1);
                        break;
                    }
                    else if (waiter.IsUpdate)
                    {
                        outcomes.Add((waiter, 0, null));
                    }
                    else
                    {
                        var taken = TryTake(waiter.Value, out var identity);
                        Debug.Assert(taken, "The counter needed is reserved.");
                        outcomes.Add((waiter, identity, null));
                    }

                    _waiting.Dequeue();
                }
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
