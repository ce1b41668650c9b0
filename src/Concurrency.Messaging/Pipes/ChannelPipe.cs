using System.Threading.Channels;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A <see cref="Channel{T}"/>, unbounded or bounded. Broadcast gives each consumer its own channel; work-sharing shares one.
/// A consumer runs as turns on the thread pool (the default, <see cref="PipeRunner.ThreadPool"/>), or on a dedicated thread
/// that parks while idle (<see cref="PipeRunner.DedicatedThread"/>); see <see cref="PipeConsumer{T, TQueue}"/>.
/// </summary>
/// <remarks>
/// <para>
/// Posts to several channels and the close share one gate, so every consumer sees the same order and a close never lands
/// between a post's channels (a message a post accepted reaches every consumer). A bounded broadcast that waits for room
/// keeps its room in a <see cref="LaneRoom"/>, reserved in every channel before the post writes to any, and waits for it
/// outside the gate; its channels are then unbounded. A single channel keeps its own bound and its own asynchronous wait.
/// </para>
/// <para>
/// Written around two known .NET 10 bounded-channel bugs: cancelling a pending <c>ReadAsync</c> can lose the item a writer
/// handed to it (dotnet/runtime#132094), and under CPU contention a parked reader may never wake (dotnet/runtime#131141).
/// So a consumer never waits on the channel at all, whichever runner runs it: it drains with <c>TryRead</c>, and producers
/// schedule it through its own flag (see <see cref="ChannelTurnQueue{T}"/>). A producer parked waiting for room looks at
/// the channel on its own now and then (see <see cref="WatchAsync"/>), so a missed wake-up delays, never strands. Abort and
/// fault close the writers instead of cancelling readers. A third bug, in the unbounded channels (dotnet/runtime#123544: a
/// <c>TryComplete</c> racing the last <c>TryRead</c> can leave the reader's <c>Completion</c> incomplete for ever), is
/// why a consumer ends on a flag the close sets (<see cref="ChannelTurnQueue{T}.WritersDone"/>), not on
/// <c>Completion</c>.
/// </para>
/// </remarks>
internal sealed class ChannelPipe<T> : PipeBase<T>
{
    /// <summary>How long a producer parked waiting for room first waits before looking on its own; it doubles while it waits.</summary>
    internal static readonly TimeSpan WatchdogInterval = TimeSpan.FromMilliseconds(100);

    /// <summary>The longest a parked side goes without looking, so an idle pipe costs next to nothing.</summary>
    internal static readonly TimeSpan LongestWatchdogInterval = TimeSpan.FromSeconds(3.2);

    private const int SpinsBeforeWait = 50;

    private readonly Channel<T>[] _lanes;
    private readonly bool _sharing;
    private readonly int _capacity;   // bounded: the capacity of each lane; int.MaxValue when unbounded
    private readonly LaneRoom? _room; // bounded broadcast with FullMode.Wait: room reserved in every lane before a write
    private readonly Lock? _gate;     // several lanes: one post reaches every lane before the next post or the close
    private readonly PipeConsumer<T, ChannelTurnQueue<T>>[] _consumers; // consumer i reads lane i (or the shared one)
    private bool _closed;             // guarded by _gate

    /// <param name="handlers">One handler per consumer.</param>
    /// <param name="options">The pipe's options, already validated.</param>
    /// <param name="wrapLane">A test seam, <see langword="null"/> in the library: wraps each lane's channel before any
    /// consumer starts, so a test can give a consumer a reader that throws.</param>
    public ChannelPipe(IReadOnlyList<Action<T>> handlers, PipeOptions options, Func<Channel<T>, Channel<T>>? wrapLane = null)
        : base(PipeKind.Channel, options)
    {
        _sharing = options.Distribution == PipeDistribution.WorkSharing;
        var laneCount = _sharing ? 1 : handlers.Count;
        _capacity = options.Capacity ?? int.MaxValue;
        var singleReader = !_sharing || handlers.Count == 1;
        var singleWriter = options.Producers == 1 || laneCount > 1; // several lanes are written under the gate only
        if (laneCount > 1 && options.Capacity is int reserved && options.FullMode == PipeFullMode.Wait)
        {
            _room = new LaneRoom(laneCount, reserved);
        }

        _lanes = new Channel<T>[laneCount];
        for (var i = 0; i < _lanes.Length; i++)
        {
            _lanes[i] = options.Capacity is int capacity && _room is null
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
            if (wrapLane is not null)
            {
                _lanes[i] = wrapLane(_lanes[i]);
            }
        }

        _gate = laneCount > 1 ? new Lock() : null;
        _consumers = CreateConsumers(options, [.. handlers], i =>
        {
            var lane = _sharing ? 0 : i;
            // A lane of its own is taken in batches; consumers that share one take a message at a time, so they share its backlog.
            return new ChannelTurnQueue<T>(_lanes[lane].Reader, batches: !_sharing, _room, lane);
        }, SpinsBeforeWait, IdleWait.SpinsFor(handlers.Count + options.Producers));
        StartConsumers(_consumers);
    }

    public override bool TryPost(T message)
    {
        if (_gate is null)
        {
            if (!_lanes[0].Writer.TryWrite(message))
            {
                return false;
            }

            Posted();
            return true;
        }

        return TryWriteAllNow(message, out _);
    }

    public override void Post(T message, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (_gate is not null)
        {
            if (TryWriteAllNow(message, out var closed))
            {
                return;
            }

            if (closed)
            {
                throw new PipeClosedException();
            }

            // Full: only a bounded broadcast with room kept apart gets here.
            cancellationToken.ThrowIfCancellationRequested();
            ThrowIfWaitingOnItself();
            _room!.Reserve(cancellationToken);
            if (!WriteAll(message))
            {
                throw new PipeClosedException();
            }

            return;
        }

        // A full channel usually has room again within microseconds: spin (and yield) a little before falling back to a
        // blocking wait, which costs a task, a timer and a thread park.
        var writer = _lanes[0].Writer;
        var spinner = default(SpinWait);
        while (!writer.TryWrite(message))
        {
            if (spinner.Count >= SpinsBeforeWait)
            {
                cancellationToken.ThrowIfCancellationRequested();
                ThrowIfWaitingOnItself();
                WriteOneAsync(writer, message, cancellationToken).AsTask().GetAwaiter().GetResult();
                return;
            }

            spinner.SpinOnce(sleep1Threshold: -1);
        }

        Posted();
    }

    public override ValueTask PostAsync(T message, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        if (_gate is null)
        {
            var writer = _lanes[0].Writer;
            if (writer.TryWrite(message))
            {
                Posted();
                return default;
            }

            return WriteOneAsync(writer, message, cancellationToken);
        }

        if (TryWriteAllNow(message, out var closed))
        {
            return default;
        }

        return closed ? ValueTask.FromException(new PipeClosedException()) : PostReservedAsync(message, cancellationToken);
    }

    protected override void Close()
    {
        if (_gate is null)
        {
            _lanes[0].Writer.TryComplete();
        }
        else
        {
            lock (_gate)
            {
                _closed = true;
                foreach (var lane in _lanes)
                {
                    lane.Writer.TryComplete();
                }
            }

            // Only now wake the posts waiting for room: one refused as closed must not be followed by an accepted post of
            // its own thread, which it would be if the gate were still open when it woke.
            _room?.Close();
        }

        foreach (var consumer in _consumers)
        {
            consumer.Queue.WritersDone(); // the end, told by us: the reader's Completion may never come (ChannelTurnQueue)
        }

        PipeConsumer<T, ChannelTurnQueue<T>>.NotifyAll(_consumers); // each idle consumer runs once more to find its end
    }

    /// <summary>After an accepted write: consumers that are idle need scheduling (any one of them, when they share a lane).</summary>
    private void Posted() => PipeConsumer<T, ChannelTurnQueue<T>>.NotifyPosted(_consumers, _sharing);

    /// <summary>
    /// Awaits a channel wait, but looks at <paramref name="ready"/> on its own now and then (every
    /// <see cref="WatchdogInterval"/>, doubling up to <see cref="LongestWatchdogInterval"/>), so a wake-up the channel fails to
    /// deliver cannot strand the caller. The same wait is kept across looks, so an idle side leaves no abandoned waiters.
    /// </summary>
    /// <returns>The wait's answer, or <see langword="true"/> ("look again") when <paramref name="ready"/> said so first.</returns>
    internal static async Task<bool> WatchAsync(ValueTask<bool> wait, Func<bool> ready, CancellationToken cancellationToken)
    {
        if (wait.IsCompleted)
        {
            return wait.Result;
        }

        var waiting = wait.AsTask();
        var interval = WatchdogInterval;
        while (true)
        {
            var tick = Task.Delay(interval, cancellationToken);
            if (await Task.WhenAny(waiting, tick).ConfigureAwait(false) == waiting)
            {
                return await waiting.ConfigureAwait(false);
            }

            cancellationToken.ThrowIfCancellationRequested();
            if (ready())
            {
                return true;
            }

            interval = interval < LongestWatchdogInterval ? interval * 2 : LongestWatchdogInterval;
        }
    }

    private async ValueTask PostReservedAsync(T message, CancellationToken cancellationToken)
    {
        await _room!.ReserveAsync(cancellationToken).ConfigureAwait(false);
        if (!WriteAll(message))
        {
            throw new PipeClosedException();
        }
    }

    /// <summary>
    /// Several lanes, without waiting: under the gate, reserves room (if bounded) and writes to every lane, or does nothing
    /// and says why (<paramref name="closed"/>, or full). Reserving under the gate matters: a reservation taken outside it
    /// could make a concurrent post find the pipe full and then be refused itself because a close came between, so a post
    /// would have been refused for room that no accepted message ever took.
    /// </summary>
    private bool TryWriteAllNow(T message, out bool closed)
    {
        lock (_gate!)
        {
            closed = _closed;
            if (closed || (_room is not null && !_room.TryReserve()))
            {
                return false;
            }

            foreach (var lane in _lanes)
            {
                lane.Writer.TryWrite(message); // unbounded, or room reserved; not completed (the close takes this gate)
            }
        }

        Posted();
        return true;
    }

    /// <summary>Several lanes, room already reserved (after a wait): writes to every lane, or to none if the pipe is closed.</summary>
    private bool WriteAll(T message)
    {
        bool closed;
        lock (_gate!)
        {
            closed = _closed;
            if (!closed)
            {
                foreach (var lane in _lanes)
                {
                    // Unbounded, reserved or dropping, and not completed (the close takes this gate): always accepted.
                    lane.Writer.TryWrite(message);
                }
            }
        }

        if (!closed)
        {
            Posted();
            return true;
        }

        _room?.Unreserve();
        return false;
    }

    private async ValueTask WriteOneAsync(ChannelWriter<T> writer, T message, CancellationToken cancellationToken)
    {
        while (!writer.TryWrite(message))
        {
            if (!await WatchAsync(writer.WaitToWriteAsync(cancellationToken), HasRoom, cancellationToken).ConfigureAwait(false))
            {
                throw new PipeClosedException();
            }
        }

        Posted();
    }

    /// <summary>One bounded lane: whether it has room now (what a writer parked on it waits for).</summary>
    private bool HasRoom() => _lanes[0].Reader.Count < _capacity;
}
