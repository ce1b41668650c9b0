using System.Threading.Channels;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A <see cref="Channel{T}"/>, unbounded or bounded. Broadcast gives each consumer its own channel; work-sharing shares one.
/// </summary>
/// <remarks>
/// Written around two known .NET 10 bounded-channel bugs: cancelling a pending <c>ReadAsync</c> can lose the item a writer
/// handed to it (dotnet/runtime#132094), and under CPU contention a parked reader may never wake (dotnet/runtime#131141).
/// So consumers never read with a cancellable call: they drain with <c>WaitToReadAsync</c> (no token) and <c>TryRead</c>, and a
/// parked consumer or producer also looks again every <see cref="WatchdogInterval"/>, so a missed wake-up delays, never strands.
/// Abort and fault close the writers instead of cancelling readers.
/// </remarks>
internal sealed class ChannelPipe<T> : PipeBase<T>
{
    /// <summary>How long a parked consumer or producer waits before looking again on its own.</summary>
    internal static readonly TimeSpan WatchdogInterval = TimeSpan.FromMilliseconds(100);

    private const int SpinsBeforeWait = 50;

    private readonly Channel<T>[] _lanes;
    private readonly Action<T>[] _handlers;
    private readonly bool _sharing;
    private readonly int? _capacity;
    private readonly bool _checkRoom;      // bounded and FullMode.Wait: a broadcast post needs room in every lane
    private readonly Lock? _broadcastGate; // serializes broadcast posts: one post reaches every lane before the next starts

    public ChannelPipe(IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(PipeKind.Channel, options)
    {
        _handlers = [.. handlers];
        _sharing = options.Distribution == PipeDistribution.WorkSharing;
        _capacity = options.Capacity;
        var singleReader = !_sharing || _handlers.Length == 1;
        var singleWriter = options.Producers == 1;
        _lanes = new Channel<T>[_sharing ? 1 : _handlers.Length];
        for (var i = 0; i < _lanes.Length; i++)
        {
            _lanes[i] = _capacity is int capacity
                ? Channel.CreateBounded<T>(
                    new BoundedChannelOptions(capacity)
                    {
                        FullMode = options.FullMode switch
                        {
                            PipeFullMode.DropOldest => BoundedChannelFullMode.DropOldest,
                            PipeFullMode.DropNewest => BoundedChannelFullMode.DropNewest,
                            _ => BoundedChannelFullMode.Wait,
                        },
                        SingleReader = singleReader,
                        SingleWriter = singleWriter,
                        AllowSynchronousContinuations = false,
                    },
                    _ => CountDropped())
                : Channel.CreateUnbounded<T>(new UnboundedChannelOptions
                {
                    SingleReader = singleReader,
                    SingleWriter = singleWriter,
                    AllowSynchronousContinuations = false,
                });
        }

        // Broadcast posts are serialized when a full lane must refuse the whole post (bounded, Wait) and when several
        // producers could otherwise reach the lanes in different orders, leaving consumers to disagree on the order.
        _checkRoom = _capacity is not null && options.FullMode == PipeFullMode.Wait;
        if (_lanes.Length > 1 && (_checkRoom || options.Producers > 1))
        {
            _broadcastGate = new Lock();
        }

        StartConsumers(_handlers.Length);
        for (var i = 0; i < _handlers.Length; i++)
        {
            var consumer = i;
            _ = Task.Run(() => ConsumeAsync(consumer));
        }
    }

    public override bool TryPost(T message)
    {
        if (_broadcastGate is null)
        {
            return TryPostAll(message);
        }

        lock (_broadcastGate)
        {
            // With one poster at a time, room can only grow between this check and the writes.
            if (_checkRoom && _lanes.Any(lane => lane.Reader.Count >= _capacity))
            {
                return false;
            }

            return TryPostAll(message);
        }
    }

    public override void Post(T message, CancellationToken cancellationToken = default)
    {
        if (_broadcastGate is null)
        {
            // A full channel usually has room again within microseconds: spin (and yield) a little before falling back to
            // a blocking wait, which costs a task, a timer and a thread park.
            var spinner = default(SpinWait);
            while (!TryPostAll(message))
            {
                if (spinner.Count >= SpinsBeforeWait)
                {
                    PostAllAsync(message, cancellationToken).AsTask().GetAwaiter().GetResult();
                    return;
                }

                spinner.SpinOnce(sleep1Threshold: -1);
            }

            return;
        }

        lock (_broadcastGate)
        {
            PostAllAsync(message, cancellationToken).AsTask().GetAwaiter().GetResult();
        }
    }

    public override ValueTask PostAsync(T message, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        if (TryPost(message))
        {
            return default;
        }

        if (_broadcastGate is null)
        {
            return PostAllAsync(message, cancellationToken);
        }

        // The gate cannot be held across an await; wait for room on a pool thread instead.
        return new ValueTask(Task.Run(() => Post(message, cancellationToken), cancellationToken));
    }

    protected override void Close()
    {
        foreach (var lane in _lanes)
        {
            lane.Writer.TryComplete();
        }
    }

    private bool TryPostAll(T message)
    {
        if (!_lanes[0].Writer.TryWrite(message))
        {
            return false;
        }

        for (var i = 1; i < _lanes.Length; i++)
        {
            if (!_lanes[i].Writer.TryWrite(message))
            {
                // Room was checked under the gate, so only a Complete that overtook this broadcast gets here.
                CountUnhandled(_lanes.Length - i);
                break;
            }
        }

        return true;
    }

    private async ValueTask PostAllAsync(T message, CancellationToken cancellationToken)
    {
        for (var i = 0; i < _lanes.Length; i++)
        {
            var writer = _lanes[i].Writer;
            try
            {
                while (!writer.TryWrite(message))
                {
                    var wait = writer.WaitToWriteAsync(cancellationToken);
                    var open = wait.IsCompleted
                        ? wait.Result
                        : await WatchAsync(wait.AsTask(), cancellationToken).ConfigureAwait(false);
                    if (!open)
                    {
                        if (i == 0)
                        {
                            throw new PipeClosedException();
                        }

                        CountUnhandled(_lanes.Length - i);
                        return;
                    }
                }
            }
            catch (OperationCanceledException) when (i > 0)
            {
                // Cancelled while a later lane was full: the earlier consumers have it, the rest are counted.
                CountUnhandled(_lanes.Length - i);
                throw;
            }
        }
    }

    private async Task ConsumeAsync(int consumer)
    {
        var reader = _lanes[_sharing ? 0 : consumer].Reader;
        var handler = _handlers[consumer];
        try
        {
            while (true)
            {
                while (reader.TryRead(out var message))
                {
                    Deliver(handler, message);
                }

                var wait = reader.WaitToReadAsync();
                var more = wait.IsCompleted
                    ? wait.Result
                    : await WatchAsync(wait.AsTask(), CancellationToken.None).ConfigureAwait(false);
                if (!more)
                {
                    return;
                }
            }
        }
        finally
        {
            ConsumerExited();
        }
    }

    /// <summary>
    /// Awaits a channel wait, but on the watchdog's tick answers <see langword="true"/> ("look again") so that a wake-up the
    /// channel fails to deliver cannot strand the caller. The abandoned wait is harmless: waits take no item.
    /// </summary>
    private static async Task<bool> WatchAsync(Task<bool> wait, CancellationToken cancellationToken)
    {
        try
        {
            return await wait.WaitAsync(WatchdogInterval, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            return true;
        }
    }
}
