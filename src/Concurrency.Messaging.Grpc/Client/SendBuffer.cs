namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The client's buffer between the callers and the pump: at most <c>capacity</c> sends wait in it to be written, and a
/// send that finds it full waits for room, in call order. The pump, its only reader, lets the oldest waiting send in as
/// it takes one out, on its own thread and under the same lock, so a waiting send costs no thread hop to be let in
/// (a bounded <see cref="System.Threading.Channels.Channel"/> completes each waiting writer on the thread pool, one work
/// item per message, whatever its options say).
/// </summary>
/// <remarks>
/// Every field is guarded by <see cref="_gate"/>, and so is <see cref="PendingSend.BufferPlace"/> of the sends in it,
/// which only the buffer writes. A waiting send leaves the line in one of three ways, each under the
/// lock: the pump lets it in, its caller's token fires (<see cref="TryCancelWaiting"/>), or the buffer is completed
/// (<see cref="Complete"/>). Only a send let in is ever numbered and written; the other two are refused, and both may
/// happen to one send (the token fires while the closing client refuses it): the send's own compare-and-swap picks one.
/// </remarks>
internal sealed class SendBuffer(int capacity)
{
    private readonly Lock _gate = new();
    private readonly Queue<PendingSend> _items = new();   // the sends to be written, oldest first; at most capacity
    private Queue<PendingSend> _waiting = new();          // the sends waiting for room, oldest first; cancelled ones are skipped
    private int _cancelledInLine;                         // cancelled sends still in _waiting
    private bool _completed;                              // no more sends are taken in
    private TaskCompletionSource? _reader;                // the pump's wait for an item, if it waits

    /// <summary>Gets whether the buffer is completed and the pump has taken everything in it.</summary>
    public bool IsFinished
    {
        get
        {
            lock (_gate)
            {
                return _completed && _items.Count == 0;
            }
        }
    }

    /// <summary>Puts a send in the buffer, or in the line waiting for room if the buffer is full or others already wait.</summary>
    public SendAdmission Add(PendingSend send) => Place(send, mayWait: true);

    /// <summary>Puts a send in the buffer only if there is room and nobody waits for it; never waits (the sweeper's heartbeat wake).</summary>
    public bool TryAdd(PendingSend send) => Place(send, mayWait: false) == SendAdmission.Added;

    /// <summary>Pump only: takes the oldest send, and lets the oldest waiting send in behind it.</summary>
    public bool TryTake(out PendingSend send)
    {
        lock (_gate)
        {
            if (!_items.TryDequeue(out send!))
            {
                return false;
            }

            while (_waiting.TryDequeue(out var waiting))
            {
                if (waiting.BufferPlace == BufferPlace.Waiting)
                {
                    waiting.BufferPlace = BufferPlace.In;
                    _items.Enqueue(waiting);
                    break;
                }

                _cancelledInLine--;
            }

            return true;
        }
    }

    /// <summary>Pump only: finishes when there is something to take or the buffer is completed; cancelled by <paramref name="cancellationToken"/>.</summary>
    public Task WaitToTakeAsync(CancellationToken cancellationToken)
    {
        TaskCompletionSource reader;
        lock (_gate)
        {
            if (_items.Count > 0 || _completed)
            {
                return Task.CompletedTask;
            }

            // Completed by a send's Add on the sender's thread: the pump goes on on the thread pool, not there.
            reader = _reader ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        }

        return reader.Task.WaitAsync(cancellationToken);
    }

    /// <summary>
    /// Takes a send out of the line because its caller gave up. False once the pump let it in (or it never waited): then it
    /// is numbered or about to be, and only its wait for the reply can be cancelled. True while it waits, and also after
    /// <see cref="Complete"/> refused it: either way it was never sent, and the caller refuses it.
    /// </summary>
    public bool TryCancelWaiting(PendingSend send)
    {
        lock (_gate)
        {
            if (send.BufferPlace == BufferPlace.In)
            {
                return false;
            }

            if (send.BufferPlace == BufferPlace.Waiting)
            {
                // Left in the line and skipped when its turn comes; the line is rebuilt only when the cancelled outnumber
                // the rest, so callers that give up on a stalled stream over and over do not pile up there.
                send.BufferPlace = BufferPlace.Outside;
                if (++_cancelledInLine > Math.Max(capacity, _waiting.Count / 2))
                {
                    _waiting = new Queue<PendingSend>(_waiting.Where(waiting => waiting.BufferPlace == BufferPlace.Waiting));
                    _cancelledInLine = 0;
                }
            }

            return true;
        }
    }

    /// <summary>Takes no more sends; what is in the buffer stays for the pump to take. Returns the sends that were waiting for room, refused now.</summary>
    public List<PendingSend> Complete()
    {
        var refused = new List<PendingSend>();
        TaskCompletionSource? reader;
        lock (_gate)
        {
            if (_completed)
            {
                return refused;
            }

            _completed = true;
            while (_waiting.TryDequeue(out var waiting))
            {
                if (waiting.BufferPlace == BufferPlace.Waiting)
                {
                    waiting.BufferPlace = BufferPlace.Outside;
                    refused.Add(waiting);
                }
            }

            _cancelledInLine = 0;
            reader = _reader;
            _reader = null;
        }

        reader?.TrySetResult();
        return refused;
    }

    // Added, or waiting (only if mayWait), or refused: Closed, which for a send that may not wait also means "no room".
    private SendAdmission Place(PendingSend send, bool mayWait)
    {
        TaskCompletionSource? reader;
        lock (_gate)
        {
            if (_completed)
            {
                return SendAdmission.Closed;
            }

            if (_items.Count >= capacity || _waiting.Count > 0)
            {
                if (!mayWait)
                {
                    return SendAdmission.Closed;
                }

                send.BufferPlace = BufferPlace.Waiting;
                _waiting.Enqueue(send);
                return SendAdmission.Waiting;
            }

            send.BufferPlace = BufferPlace.In;
            _items.Enqueue(send);
            reader = _reader;
            _reader = null;
        }

        reader?.TrySetResult();
        return SendAdmission.Added;
    }
}

/// <summary>Where a send stands in its <see cref="SendBuffer"/>; written by the buffer only, under its lock.</summary>
internal enum BufferPlace
{
    /// <summary>Not in the buffer: never placed, or taken out of the line (its caller gave up, or the buffer was completed). Never written.</summary>
    Outside,

    /// <summary>In the line, waiting for room.</summary>
    Waiting,

    /// <summary>In the buffer, at once or let in from the line: to be numbered and written.</summary>
    In,
}
