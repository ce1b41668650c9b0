namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The pump's way from the buffer to the pending table: takes sends from the <see cref="SendBuffer"/> in batches bounded
/// by count and bytes, numbers them, puts them in the in-order line (in-order mode) and the open ones in the
/// <see cref="PendingTable"/>, and times out one found already past its deadline.
/// </summary>
/// <remarks>Pump only: <see cref="_carry"/> and <see cref="_lastSequence"/> are read and written by the pump alone.</remarks>
internal sealed class SendIntake(PeerClientState state)
{
    private readonly PeerClientState _state = state;

    // Copied from the shared state, so that a batch costs no hop through it.
    private readonly SendBuffer _buffer = state.Buffer;
    private readonly PendingTable _pending = state.Pending;
    private readonly InOrderDelivery? _delivery = state.Delivery;
    private readonly int _maxBatchBytes = state.Options.MaxBatchBytes;

    // The last sequence number given.
    private ulong _lastSequence;

    // A send taken from the buffer that did not fit the batch being built: the first of the next.
    private PendingSend? _carry;

    /// <summary>Gets whether nothing is carried over from the last batch, and the buffer is completed and empty.</summary>
    public bool IsFinished => _carry is null && _buffer.IsFinished;

    /// <summary>Makes sure a send is carried for the next <see cref="Take"/>: the one carried over, else the buffer's oldest. False when the buffer has none.</summary>
    public bool TryCarry() => _carry is not null || _buffer.TryTake(out _carry);

    /// <summary>
    /// After <see cref="TryCarry"/>: takes the carried send and what else the buffer holds, up to <paramref name="maxCount"/>
    /// and the batch's bytes, and numbers them (a <see cref="PeerSweeper.HeartbeatWake"/> is dropped, not numbered).
    /// </summary>
    public void Take(List<PendingSend> taken, int maxCount)
    {
        taken.Clear();
        var bytes = 0;
        var send = _carry!;
        _carry = null;
        while (true)
        {
            if (!ReferenceEquals(send, PeerSweeper.HeartbeatWake))
            {
                var size = send.Size;
                if (taken.Count > 0 && bytes + size > _maxBatchBytes)
                {
                    _carry = send;
                    return;
                }

                send.Sequence = ++_lastSequence;
                taken.Add(send);
                bytes += size;
            }

            if (taken.Count >= maxCount || !_buffer.TryTake(out send))
            {
                return;
            }
        }
    }

    /// <summary>
    /// Puts numbered sends in the in-order line (all of them: a settled one is delivered in its turn) and the open ones,
    /// not yet past their deadline, in the pending table. Fills <paramref name="open"/> with what is to be written.
    /// </summary>
    public void Admit(List<PendingSend> taken, List<PendingSend> open)
    {
        open.Clear();
        _delivery?.Append(taken);
        var now = Environment.TickCount64;
        foreach (var send in taken)
        {
            if (!send.IsOpen)
            {
                continue;
            }

            if (send.Deadline <= now)
            {
                _state.TimeOut(send);
                continue;
            }

            open.Add(send);
        }

        _pending.Add(open);
    }

    /// <summary>While no stream is open: numbers and admits everything buffered, so that its deadlines run.</summary>
    public void AdmitAll()
    {
        var taken = new List<PendingSend>();
        var open = new List<PendingSend>();
        while (TryCarry())
        {
            Take(taken, int.MaxValue);
            Admit(taken, open);
        }
    }

    /// <summary>The client is closed: numbers everything buffered, puts it in the in-order line, and fails it with <paramref name="error"/>.</summary>
    public void FailAll(Exception error)
    {
        var taken = new List<PendingSend>();
        while (TryCarry())
        {
            Take(taken, int.MaxValue);
            _delivery?.Append(taken);
            foreach (var send in taken)
            {
                send.Fail(error);
            }
        }
    }
}
