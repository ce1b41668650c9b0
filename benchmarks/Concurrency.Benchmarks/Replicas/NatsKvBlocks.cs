using System.Diagnostics;
using NATS.Client.Core;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// Identities handed out locally from blocks reserved on one key of a JetStream key-value bucket, as production identity
/// services do: a reservation moves the key from v to v + block size with compare-and-set (reading again whenever another
/// instance's write came first) and owns v + 1 .. v + block size; <see cref="NextAsync"/> hands out the current block's
/// identities in order, with no server call, and reserves the next block once the current one is used up. Any number of
/// instances, in any number of processes, may share the key: their blocks never overlap, so identities never repeat.
/// </summary>
/// <remarks>
/// Thread-safe: any number of callers may call <see cref="NextAsync"/> at once; each sees its identities increase.
/// Callers that find the block used up all wait for the one reservation in flight, never one reservation each; a
/// reservation that fails (a timeout, a refusal) fails the callers waiting for it, and the next call tries again.
/// Identities are unique but not gapless: what is left of a block when its instance is disposed is never handed out.
/// The connection stays the caller's: disposing cancels the reservation in flight, waits for it to end, and leaves the
/// connection open.
/// </remarks>
internal sealed class NatsKvBlocks : IAsyncDisposable
{
    /// <summary>A block size in the range production identity services use: one server round per thousand identities.</summary>
    public const int DefaultBlockSize = 1000;

    private readonly NatsKvCounter _counter;
    private readonly long _blockSize;

    // Guards the block, the reservation in flight and the disposed flag.
    private readonly Lock _gate = new();

    // Cancelled once, by DisposeAsync: ends the reservation in flight. Disposed once that reservation has ended.
    private readonly CancellationTokenSource _stopping = new();

    // The current block: the next identity to hand out and the block's last; used up when _next > _last. Guarded by _gate.
    private long _next = 1;
    private long _last;

    // The one reservation in flight, which every caller finding the block used up waits for; null when none is. Set and
    // cleared under _gate, and completed only after it was cleared, so a waiter that wakes finds either its new block or none.
    private TaskCompletionSource? _reservation;

    // The run of the latest reservation, which DisposeAsync waits for. Guarded by _gate.
    private Task _reserving = Task.CompletedTask;

    // Guarded by _gate.
    private bool _disposed;

    // Blocks this instance reserved; written under _gate, read by anyone with Interlocked.
    private long _reservations;

    private NatsKvBlocks(NatsKvCounter counter, int blockSize)
    {
        _counter = counter;
        _blockSize = blockSize;
    }

    /// <summary>Gets how many blocks this instance reserved.</summary>
    public long Reservations => Interlocked.Read(ref _reservations);

    /// <summary>Gets how many of this instance's reservation writes lost to another instance's and were tried again.</summary>
    public long Conflicts => _counter.Conflicts;

    /// <summary>
    /// Opens the hand-out over blocks of <paramref name="blockSize"/> identities reserved on <paramref name="key"/> of
    /// <paramref name="bucket"/>, connecting <paramref name="connection"/> if it is not yet and creating the bucket if it
    /// is missing (file storage, history 1). The first block is reserved by the first <see cref="NextAsync"/>.
    /// </summary>
    /// <exception cref="TimeoutException">The server did not answer within <see cref="NatsKvCounter.CallTimeout"/>.</exception>
    public static async Task<NatsKvBlocks> OpenAsync(INatsConnection connection, string bucket, string key, int blockSize, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(blockSize);
        return new(await NatsKvCounter.OpenAsync(connection, bucket, key, cancellationToken).ConfigureAwait(false), blockSize);
    }

    /// <summary>
    /// Returns the next identity of the current block at once, or, where the block is used up, once the reservation of
    /// the next block (started by this call or already in flight) has ended.
    /// </summary>
    /// <exception cref="TimeoutException">The reservation's server round got no answer within <see cref="NatsKvCounter.CallTimeout"/>.</exception>
    /// <exception cref="ObjectDisposedException">The hand-out was disposed, before or during the call.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled (the reservation goes on for the others).</exception>
    public ValueTask<long> NextAsync(CancellationToken cancellationToken)
    {
        Task reserved;
        lock (_gate)
        {
            if (TryTake(out var identity))
            {
                return ValueTask.FromResult(identity);
            }

            reserved = Reservation();
        }

        return TakeOnceReservedAsync(reserved, cancellationToken);
    }

    /// <summary>Cancels the reservation in flight (its waiters end with <see cref="ObjectDisposedException"/>), waits for it to end; later calls are refused.</summary>
    public async ValueTask DisposeAsync()
    {
        Task reserving;
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            reserving = _reserving;
        }

        _stopping.Cancel();
        await reserving.ConfigureAwait(false); // ReserveAsync hands its failures to its waiters and never throws
        _stopping.Dispose();
    }

    /// <summary>Waits for a reservation, then takes from the block it installed; others may have used that block up meanwhile.</summary>
    private async ValueTask<long> TakeOnceReservedAsync(Task reserved, CancellationToken cancellationToken)
    {
        while (true)
        {
            await reserved.WaitAsync(cancellationToken).ConfigureAwait(false);
            lock (_gate)
            {
                if (TryTake(out var identity))
                {
                    return identity;
                }

                reserved = Reservation();
            }
        }
    }

    /// <summary>Under the gate: hands out the current block's next identity, or says the block is used up.</summary>
    private bool TryTake(out long identity)
    {
        Debug.Assert(_gate.IsHeldByCurrentThread, "The block is taken from under the gate.");
        Debug.Assert(_next >= 1 && _next <= _last + 1, "The next identity lies in the block or just past it.");
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_next <= _last)
        {
            identity = _next++;
            return true;
        }

        identity = 0;
        return false;
    }

    /// <summary>Under the gate, with the block used up: the reservation in flight, or a new one started off the gate.</summary>
    private Task Reservation()
    {
        Debug.Assert(_gate.IsHeldByCurrentThread && _next > _last, "A reservation is joined under the gate, once the block is used up.");
        var reservation = _reservation;
        if (reservation is null)
        {
            reservation = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _reservation = reservation;

            // Run on the pool, not here: nothing of the server round may run under the gate.
            _reserving = Task.Run(() => ReserveAsync(reservation));
        }

        return reservation.Task;
    }

    /// <summary>Reserves the next block for <paramref name="reservation"/>'s waiters, installs it, and then wakes them.</summary>
    private async Task ReserveAsync(TaskCompletionSource reservation)
    {
        try
        {
            var last = await _counter.AdvanceAsync(_blockSize, _stopping.Token).ConfigureAwait(false);
            lock (_gate)
            {
                Debug.Assert(ReferenceEquals(_reservation, reservation) && _next > _last, "One reservation at a time, installed over a used-up block.");
                _next = last - _blockSize + 1;
                _last = last;
                _reservation = null;
                Interlocked.Increment(ref _reservations);
            }

            reservation.SetResult();
        }
#pragma warning disable CA1031 // every failure goes to the callers waiting for this reservation, who throw it
        catch (Exception e)
#pragma warning restore CA1031
        {
            lock (_gate)
            {
                _reservation = null;
            }

            reservation.SetException(e is OperationCanceledException && _stopping.IsCancellationRequested
                ? new ObjectDisposedException($"The {nameof(NatsKvBlocks)} was disposed while a block was being reserved.", e)
                : e);
        }
    }
}
