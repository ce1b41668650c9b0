using System.Diagnostics;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One send, from the caller's call until its task finishes. Exactly one outcome wins (<see cref="Settle"/> is a
/// compare-and-swap), whichever of the listener (reply), the sweeper (deadline), the caller's token, or the pump
/// (resends exhausted, client closed) comes first; the others find it settled and do nothing.
/// In <see cref="PeerMode.InOrder"/> the outcome is only recorded here and the delivery loop completes the task later, in
/// sequence order. In <see cref="PeerMode.Async"/> a reply the listener brings is completed with the rest of its batch by
/// <see cref="ReplyDelivery"/>, and any other outcome by a work item of its own. In <see cref="PeerMode.Sync"/> the task
/// completes at once, its continuations running asynchronously. Either way a caller's continuation never runs on the
/// thread that settled the send.
/// </summary>
/// <remarks>
/// Who writes and who reads each field, so that no field has more parties than it needs:
/// <list type="bullet">
/// <item>Set once, by the caller's thread, before the send is shared (readonly or <c>init</c>): <see cref="Message"/>,
/// <see cref="Size"/>, <see cref="Deadline"/>, <see cref="Span"/>, <see cref="Started"/>, <see cref="Address"/> and the
/// delivery; read by anyone.</item>
/// <item>The buffer's, under its lock: <see cref="BufferPlace"/>.</item>
/// <item>The pump's: <see cref="Sequence"/> (written when it takes the send, before the pending table's lock publishes it
/// to the sweeper) and <see cref="Writes"/>.</item>
/// <item>The caller's token: <c>_buffer</c> and <c>_registration</c>, written by <see cref="Watch"/> on the caller's thread
/// before, or just as, the token's callback may run; the settling thread only unregisters.</item>
/// <item>The outcome: <c>_state</c> is the one field every settling party touches, by compare-and-swap; the winner alone
/// writes <c>_reply</c>, <c>_error</c> and <c>_cancelled</c>, and whoever delivers reads them after it saw
/// <see cref="IsSettled"/>.</item>
/// </list>
/// </remarks>
internal sealed class PendingSend : TaskCompletionSource<PeerMessage>
{
    private const int Open = 0;
    private const int Claimed = 1;
    private const int Settled = 2;

    // Null unless in-order: then the outcome waits for this loop to deliver it.
    private readonly InOrderDelivery? _delivery;

    // Null unless async: then the listener's replies are completed a batch at a time there.
    private readonly ReplyDelivery? _replies;

    // Written once by the thread that wins Settle (Open -> Claimed), then published by the Volatile write of Settled;
    // the delivery loop reads them only after it saw Settled. _registration: see Watch.
    private PeerMessage _reply;
    private Exception? _error;
    private CancellationToken _cancelled;
    private int _state;
    private CancellationTokenRegistration _registration;

    // The buffer the send was put in: its caller's token takes it out of the line there if it is still waiting for room.
    // Written by Watch before it registers the callback that reads it.
    private SendBuffer? _buffer;

    public PendingSend(PeerMessage message, int size, long deadline, InOrderDelivery? delivery, ReplyDelivery? replies = null)
        : base(delivery is null && replies is null ? TaskCreationOptions.RunContinuationsAsynchronously : TaskCreationOptions.None)
    {
        Message = message;
        Size = size;
        Deadline = deadline;
        _delivery = delivery;
        _replies = replies;
    }

    /// <summary>Gets the request. Kept until settled, because it may be written again after a reconnect.</summary>
    public PeerMessage Message { get; }

    /// <summary>Gets the bytes the message takes in a batch on the wire (measured once, by the send).</summary>
    public int Size { get; }

    /// <summary>Gets the time (<see cref="Environment.TickCount64"/>) after which the sweeper fails the send.</summary>
    public long Deadline { get; }

    /// <summary>Gets or sets the sequence number; assigned by the pump when it takes the send from the buffer (0 before). Pump only, but for the sweeper's read under the pending table's lock.</summary>
    public ulong Sequence { get; set; }

    /// <summary>Gets the send's span, or null while nobody traces. Set by the caller's thread before the send is shared; stopped by the thread that settles it.</summary>
    public Activity? Span { get; init; }

    /// <summary>Gets when the send started (<see cref="PeerMeter.StartSend"/>), or 0 while nobody measures its duration.</summary>
    public long Started { get; init; }

    /// <summary>Gets the server the send goes to, for its duration's tags.</summary>
    public Uri? Address { get; init; }

    /// <summary>Gets or sets how many times the pump wrote the message. Pump only.</summary>
    public int Writes { get; set; }

    /// <summary>Gets whether no outcome has been claimed yet (the pump skips, the sweeper drops sends that are not open).</summary>
    public bool IsOpen => Volatile.Read(ref _state) == Open;

    /// <summary>Gets whether an outcome has been recorded and can be delivered.</summary>
    public bool IsSettled => Volatile.Read(ref _state) == Settled;

    /// <summary>Gets or sets where the send stands in its <see cref="SendBuffer"/>. Written by that buffer only, under its lock.</summary>
    public BufferPlace BufferPlace { get; set; }

    /// <summary>Gets whether the send waits in its <see cref="SendBuffer"/>'s line for room (read under that buffer's lock, or once it is quiet).</summary>
    public bool WaitingForRoom => BufferPlace == BufferPlace.Waiting;

    /// <summary>
    /// Lets the caller's token end the send: while it waits for room it is refused (never numbered, never sent, delivered at
    /// once); once in the buffer or written, its wait for the reply is cancelled (it may still reach the server).
    /// </summary>
    public void Watch(SendBuffer buffer, CancellationToken cancellationToken)
    {
        if (cancellationToken.CanBeCanceled)
        {
            _buffer = buffer;
            _registration = cancellationToken.UnsafeRegister(static (state, token) => ((PendingSend)state!).OnCancelled(token), this);

            // The reply may have come before the registration did: then nobody else will take it off the token.
            if (!IsOpen)
            {
                _registration.Unregister();
            }
        }
    }

    /// <summary>The listener only: records the reply. In async mode the listener then hands the send to its <see cref="ReplyDelivery"/>.</summary>
    public bool Reply(PeerMessage reply)
    {
        if (!Settle())
        {
            return false;
        }

        _reply = reply;
        return Finish(byListener: true);
    }

    /// <summary>Records a failure; <paramref name="byListener"/> as for <see cref="Reply"/> (a failed reply), else completed on its own.</summary>
    public bool Fail(Exception error, bool byListener = false)
    {
        if (!Settle())
        {
            return false;
        }

        _error = error;
        return Finish(byListener);
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

    /// <summary>Completes the task with the recorded outcome: the delivery loop calls it in send order (in-order mode), <see cref="ReplyDelivery"/> a batch at a time (async mode).</summary>
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

    /// <summary>Refuses a send that was waiting for room when the client closed: never numbered, never sent.</summary>
    public void Refuse(Exception error) => Refuse(error, default);

    private void OnCancelled(CancellationToken token)
    {
        if (_buffer!.TryCancelWaiting(this))
        {
            Refuse(null, token);
        }
        else
        {
            Cancel(token);
        }
    }

    // A refused send never got a sequence number and never joins the in-order line, so it is delivered outside it.
    private void Refuse(Exception? error, CancellationToken cancelled)
    {
        if (!Settle())
        {
            return;
        }

        _error = error;
        _cancelled = error is null ? cancelled : default;
        Finish(outsideTheLine: true);
    }

    private bool Settle() => Interlocked.CompareExchange(ref _state, Claimed, Open) == Open;

    // Publishes the outcome and hands the send to whoever completes its task. In-order and async tasks run their
    // continuations inline, so neither is ever completed on the settling thread (the listener, the sweeper, a token's
    // callback, a closing caller): the in-order line, the listener's batch, or a work item of its own does it.
    private bool Finish(bool byListener = false, bool outsideTheLine = false)
    {
        if (Span is { } span)
        {
            PeerTracing.EndSend(span, _error, _cancelled.IsCancellationRequested);
        }

        PeerMeter.EndSend(Started, Address, _error, _cancelled.IsCancellationRequested);

        Volatile.Write(ref _state, Settled);
        // Unregister, not Dispose: Dispose would wait for a running callback, and that callback may be this very call.
        _registration.Unregister();
        if (_delivery is not null && !outsideTheLine)
        {
            _delivery.Signal();
        }
        else if (_delivery is null && _replies is null)
        {
            Deliver();
        }
        else if (!byListener)
        {
            DeliverOnThreadPool();
        }

        // Else the listener hands it to _replies with the rest of its batch.
        return true;
    }

    private void DeliverOnThreadPool() => ThreadPool.UnsafeQueueUserWorkItem(static send => send.Deliver(), this, preferLocal: false);
}
