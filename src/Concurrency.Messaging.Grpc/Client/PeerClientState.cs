namespace Concurrency.Messaging.Grpc;

/// <summary>
/// What the parts of a <see cref="PeerClient"/> share: the caller's path, the <see cref="PeerPump"/>, the
/// <see cref="PeerListener"/> and the <see cref="PeerSweeper"/>. Each part keeps its own state; only this is seen by more
/// than one of them.
/// </summary>
/// <remarks>
/// The concurrency rule: every reference here is set at construction and never changes, and the objects it points to
/// guard themselves (the buffer, the pending table and the two deliveries each have their own lock). Three fields change,
/// each with one writer: <see cref="LastError"/> (the pump, volatile), <see cref="Fault"/> (the pump, once, volatile) and
/// the count of timeouts (the sweeper and the pump, <see cref="Interlocked"/>). The parts copy the references they use
/// per message into fields of their own, so that this object costs the per-message path no pointer hop; only the caller's
/// read of <see cref="Fault"/> comes here.
/// </remarks>
internal sealed class PeerClientState
{
    private volatile Exception? _lastError;
    private volatile PeerDeliveryException? _fault;
    private long _timedOut;

    public PeerClientState(Uri address, PeerClientOptions options)
    {
        Address = address;
        Options = options;
        Buffer = new SendBuffer(options.BufferSize);
        Delivery = options.Mode == PeerMode.InOrder ? new InOrderDelivery() : null;
        Replies = options.Mode == PeerMode.Async ? new ReplyDelivery() : null;
    }

    /// <summary>Gets the server's address.</summary>
    public Uri Address { get; }

    public PeerClientOptions Options { get; }

    /// <summary>Gets the buffer between the callers and the pump.</summary>
    public SendBuffer Buffer { get; }

    /// <summary>Gets the sends taken from the buffer and not yet answered: the pump adds, the listener and the sweeper remove.</summary>
    public PendingTable Pending { get; } = new();

    /// <summary>Gets the in-order line (<see cref="PeerMode.InOrder"/>), else null.</summary>
    public InOrderDelivery? Delivery { get; }

    /// <summary>Gets the batch-at-a-time completion of replies (<see cref="PeerMode.Async"/>), else null.</summary>
    public ReplyDelivery? Replies { get; }

    /// <summary>Gets or sets the last transport error, quoted in timeouts. Written by the pump only.</summary>
    public Exception? LastError
    {
        get => _lastError;
        set => _lastError = value;
    }

    /// <summary>Gets the failure no reconnect can fix (credentials refused), or null; every send after it fails with it. Set once, by the pump, through <see cref="SetFault"/>.</summary>
    public PeerDeliveryException? Fault => _fault;

    /// <summary>Gets how many sends failed with <see cref="PeerDeliveryFailure.Timeout"/>.</summary>
    public long TimedOutCount => Interlocked.Read(ref _timedOut);

    /// <summary>The pump: records the failure no reconnect can fix, then closes the buffer, so that a send refused by the closed buffer finds it.</summary>
    public void SetFault(PeerDeliveryException fault)
    {
        _fault = fault;
        CompleteBuffer();
    }

    /// <summary>Fails a send past its deadline (the sweeper, or the pump finding it expired in the buffer).</summary>
    public void TimeOut(PendingSend send)
    {
        var last = _lastError;
        if (send.Fail(new PeerDeliveryException(
            PeerDeliveryFailure.Timeout,
            $"No reply from {Address} within {Options.DeliveryTimeout.TotalSeconds:0.###} s{StreamFailures.Describe(last)}.",
            last)))
        {
            Interlocked.Increment(ref _timedOut);
            PeerMeter.Add(PeerMeter.ClientTimeouts, 1);
        }
    }

    public PeerDeliveryException Closed(string message) => new(PeerDeliveryFailure.Closed, $"{message} ({Address})");

    /// <summary>The error of a send the buffer refused: the client was closed before, or while, it waited for room.</summary>
    public PeerDeliveryException Refusal() => _fault ?? Closed("The client was completed or disposed; the message was not sent.");

    /// <summary>Takes no more sends; those still waiting for room fail now and were never sent.</summary>
    public void CompleteBuffer()
    {
        var refused = Buffer.Complete();
        if (refused.Count == 0)
        {
            return;
        }

        var error = Refusal();
        foreach (var send in refused)
        {
            send.Refuse(error);
        }
    }
}
