namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Completes sends in the order the pump numbered them (<see cref="PeerMode.InOrder"/>). The pump appends each send as
/// it numbers it, settled or not; whoever settles a send (listener, sweeper, caller's token, pump) wakes the loop through
/// <see cref="Signal"/>; the loop
/// completes the settled sends at the head of the line, one at a time, each caller's continuation running inline on it.
/// A send that is not settled holds back every later one, which is what "in order" promises.
/// </summary>
internal sealed class InOrderDelivery : IAsyncDisposable
{
    private readonly Lock _gate = new();

    // Guarded by _gate. Sends in sequence order; the head is the next to complete.
    private readonly Queue<PendingSend> _line = new();

    // Released once per Signal; the loop drains the settled head of the line on each wake-up.
    private readonly SemaphoreSlim _wake = new(0);

    private readonly Task _loop;

    // Written by CloseAsync, read by the loop after a wake-up.
    private volatile bool _closed;

    public InOrderDelivery() => _loop = Task.Run(RunAsync);

    /// <summary>
    /// Puts numbered sends at the end of the line. One already settled (its caller's token fired while it sat in the
    /// buffer) signalled before the line held it, so the loop is woken again for it, or it could wait at the head until
    /// the next signal.
    /// </summary>
    public void Append(List<PendingSend> sends)
    {
        var settled = false;
        lock (_gate)
        {
            foreach (var send in sends)
            {
                _line.Enqueue(send);
                settled |= !send.IsOpen;
            }
        }

        if (settled)
        {
            Signal();
        }
    }

    public void Signal() => _wake.Release();

    /// <summary>Stops the loop once it has delivered every send in the line; the caller must have settled them all first.</summary>
    public async ValueTask DisposeAsync()
    {
        _closed = true;
        _wake.Release();
        await _loop.ConfigureAwait(false);
        _wake.Dispose();
    }

    private async Task RunAsync()
    {
        while (true)
        {
            await _wake.WaitAsync().ConfigureAwait(false);
            DeliverSettledHead();

            if (_closed)
            {
                // Every send is settled now; one may still be between its claim and its publication (a cancel on another thread).
                while (HasLine())
                {
                    DeliverSettledHead();
                    await Task.Yield();
                }

                return;
            }
        }
    }

    private void DeliverSettledHead()
    {
        while (true)
        {
            PendingSend? head;
            lock (_gate)
            {
                if (!_line.TryPeek(out head) || !head.IsSettled)
                {
                    return;
                }

                _line.Dequeue();
            }

            // Outside the lock: the caller's continuation runs here, synchronously (an exception in it goes to the
            // caller's own async method, not here).
            head.Deliver();
        }
    }

    private bool HasLine()
    {
        lock (_gate)
        {
            return _line.Count > 0;
        }
    }
}
