using System.Runtime.CompilerServices;
using System.Threading.Channels;
using Concurrency.Messaging.Grpc.Protocol;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One send, from the caller's call until its task finishes. Exactly one outcome wins (<see cref="Settle"/> is a
/// compare-and-swap), whichever of the listener (reply), the sweeper (deadline), the caller's token, or the pump
/// (resends exhausted, client closed) comes first; the others find it settled and do nothing.
/// In <see cref="PeerMode.InOrder"/> the outcome is only recorded here and the delivery loop completes the task later, in
/// sequence order; in the other modes the task completes at once.
/// </summary>
internal sealed class PendingSend : TaskCompletionSource<PeerMessage>
{
    private const int Open = 0;
    private const int Claimed = 1;
    private const int Settled = 2;

    // Null unless in-order: then the outcome waits for this loop to deliver it.
    private readonly InOrderDelivery? _delivery;

    // Written once by the thread that wins Settle (Open -> Claimed), then published by the Volatile write of Settled;
    // the delivery loop reads them only after it saw Settled.
    private PeerMessage _reply;
    private Exception? _error;
    private CancellationToken _cancelled;
    private int _state;
    private CancellationTokenRegistration _registration;

    // Only for a send that waited for room in the buffer: the wait, and the error if the client closed meanwhile.
    private ConfiguredValueTaskAwaitable.ConfiguredValueTaskAwaiter _room;
    private CancellationToken _roomToken;
    private Func<Exception>? _closed;

    public PendingSend(PeerMessage message, int size, long deadline, InOrderDelivery? delivery)
        : base(delivery is null ? TaskCreationOptions.RunContinuationsAsynchronously : TaskCreationOptions.None)
    {
        Message = message;
        Size = size;
        Deadline = deadline;
        _delivery = delivery;
    }

    /// <summary>Gets the request. Kept until settled, because it may be written again after a reconnect.</summary>
    public PeerMessage Message { get; }

    /// <summary>Gets the bytes the message takes in a batch on the wire (measured once, by the send).</summary>
    public int Size { get; }

    /// <summary>Gets the time (<see cref="Environment.TickCount64"/>) after which the sweeper fails the send.</summary>
    public long Deadline { get; }

    /// <summary>Gets or sets the sequence number; assigned by the pump when it takes the send from the buffer (0 before).</summary>
    public ulong Sequence { get; set; }

    /// <summary>Gets or sets how many times the pump wrote the message. Pump only.</summary>
    public int Writes { get; set; }

    /// <summary>Gets whether no outcome has been claimed yet (the pump skips, the sweeper drops sends that are not open).</summary>
    public bool IsOpen => Volatile.Read(ref _state) == Open;

    /// <summary>Gets whether an outcome has been recorded and can be delivered.</summary>
    public bool IsSettled => Volatile.Read(ref _state) == Settled;

    public void Watch(CancellationToken cancellationToken)
    {
        if (cancellationToken.CanBeCanceled)
        {
            _registration = cancellationToken.UnsafeRegister(static (state, token) => ((PendingSend)state!).Cancel(token), this);

            // The reply may have come before the registration did: then nobody else will take it off the token.
            if (!IsOpen)
            {
                _registration.Unregister();
            }
        }
    }

    /// <summary>
    /// Waits for room in the buffer without an async method of its own: the caller awaits only <see cref="Task"/>, and
    /// a send the buffer refuses (client closed, token fired) is settled and delivered at once, for it never got a
    /// sequence number and never joins the in-order line.
    /// </summary>
    public void AwaitRoom(ValueTask write, Func<Exception> closed, CancellationToken cancellationToken)
    {
        _roomToken = cancellationToken;
        _closed = closed;
        _room = write.ConfigureAwait(false).GetAwaiter();
        _room.UnsafeOnCompleted(OnRoom);
    }

    public Envelope ToEnvelope() => new()
    {
        Sequence = Sequence,
        Type = Message.Type,
        Source = Message.Source,
        Payload = Google.Protobuf.UnsafeByteOperations.UnsafeWrap(Message.Payload),
    };

    public bool Reply(PeerMessage reply)
    {
        if (!Settle())
        {
            return false;
        }

        _reply = reply;
        return Finish();
    }

    public bool Fail(Exception error)
    {
        if (!Settle())
        {
            return false;
        }

        _error = error;
        return Finish();
    }

    public bool Cancel(CancellationToken token)
    {
        if (!Settle())
        {
            return false;
        }

        _cancelled = token;
        return Finish();
    }

    /// <summary>Completes the task with the recorded outcome. The delivery loop calls it in send order (in-order mode).</summary>
    public void Deliver()
    {
        if (_error is not null)
        {
            TrySetException(_error);
        }
        else if (_cancelled.IsCancellationRequested)
        {
            TrySetCanceled(_cancelled);
        }
        else
        {
            TrySetResult(_reply);
        }
    }

    private void OnRoom()
    {
        try
        {
            _room.GetResult();
        }
        catch (ChannelClosedException)
        {
            Refuse(_closed!());
            return;
        }
        catch (OperationCanceledException)
        {
            Refuse(null);
            return;
        }

        Watch(_roomToken);
    }

    private void Refuse(Exception? error)
    {
        if (!Settle())
        {
            return;
        }

        _error = error;
        _cancelled = error is null ? _roomToken : default;
        Volatile.Write(ref _state, Settled);
        Deliver();
    }

    private bool Settle() => Interlocked.CompareExchange(ref _state, Claimed, Open) == Open;

    private bool Finish()
    {
        Volatile.Write(ref _state, Settled);
        // Unregister, not Dispose: Dispose would wait for a running callback, and that callback may be this very call.
        _registration.Unregister();
        if (_delivery is null)
        {
            Deliver();
        }
        else
        {
            _delivery.Signal();
        }

        return true;
    }
}
