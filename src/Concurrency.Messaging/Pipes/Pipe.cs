namespace Concurrency.Messaging.Pipes;

/// <summary>Creates <see cref="IPipe{T}"/> instances.</summary>
public static class Pipe
{
    /// <summary>The capacity of a <see cref="PipeKind.Ring"/> when <see cref="PipeOptions.Capacity"/> is not set.</summary>
    public const int DefaultRingCapacity = 4096;

    /// <summary>Creates a pipe with one consumer.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="kind">The implementation.</param>
    /// <param name="handler">Handles each message, on the consumer's thread.</param>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    /// <returns>A running pipe.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="handler"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The options do not fit <paramref name="kind"/>.</exception>
    public static IPipe<T> Create<T>(PipeKind kind, Action<T> handler, PipeOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(handler);
        return Create(kind, [handler], options);
    }

    /// <summary>Creates a pipe with one consumer per handler.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="kind">The implementation.</param>
    /// <param name="handlers">One handler per consumer; each runs on its own consumer. With
    /// <see cref="PipeDistribution.WorkSharing"/> the same handler may appear several times, and must then be thread-safe.</param>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    /// <returns>A running pipe.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="handlers"/> or one of its elements is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A count or capacity is not positive, or <paramref name="kind"/> or an
    /// option's enum value (runner, scheduler, full mode, distribution) is unknown.</exception>
    /// <exception cref="ArgumentException">The options do not fit <paramref name="kind"/>: for example a ring with more than one producer.</exception>
    public static IPipe<T> Create<T>(PipeKind kind, IReadOnlyList<Action<T>> handlers, PipeOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(handlers);
        options ??= new PipeOptions();
        Validate(kind, handlers, options);
        return kind switch
        {
            PipeKind.ObserveOn => new ObserveOnPipe<T>(handlers, options),
            PipeKind.ReaderWriterLockQueue => new ReaderWriterLockQueuePipe<T>(handlers, options),
            PipeKind.BatchDrainQueue => new BatchDrainQueuePipe<T>(handlers, options),
            PipeKind.Channel => new ChannelPipe<T>(handlers, options),
            PipeKind.Ring => new RingPipe<T>(handlers, options),
            PipeKind.BlockingCollection => new BlockingCollectionPipe<T>(handlers, options),
            _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Unknown pipe kind."),
        };
    }

    /// <summary>The runner <paramref name="options"/> ask for, or <paramref name="kind"/>'s own when they leave it unset.</summary>
    internal static PipeRunner RunnerOf(PipeKind kind, PipeOptions options) =>
        options.Runner ?? (kind == PipeKind.Channel ? PipeRunner.ThreadPool : PipeRunner.DedicatedThread);

    private static void Validate<T>(PipeKind kind, IReadOnlyList<Action<T>> handlers, PipeOptions options)
    {
        if (handlers.Count == 0)
        {
            throw new ArgumentException("A pipe needs at least one consumer handler.", nameof(handlers));
        }

        for (var i = 0; i < handlers.Count; i++)
        {
            if (handlers[i] is null)
            {
                throw new ArgumentNullException(nameof(handlers), $"Handler {i} is null.");
            }
        }

        Validate(kind, handlers.Count, options);
    }

    /// <summary>Checks that <paramref name="options"/> fit <paramref name="kind"/> with <paramref name="consumers"/> consumers.</summary>
    internal static void Validate(PipeKind kind, int consumers, PipeOptions options)
    {
        if (!Enum.IsDefined(kind))
        {
            throw new ArgumentOutOfRangeException(nameof(kind), kind, "Unknown pipe kind.");
        }

        if (consumers == 0)
        {
            throw new ArgumentOutOfRangeException(nameof(consumers), consumers, "A pipe needs at least one consumer handler.");
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(options.Producers, 1, "options.Producers");
        if (options.Capacity is int capacity)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1, "options.Capacity");
            ArgumentOutOfRangeException.ThrowIfGreaterThan(capacity, 1 << 30, "options.Capacity");
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(options.MessagesPerTurn, 1, "options.MessagesPerTurn");
        if (options.Runner is { } runner && !Enum.IsDefined(runner))
        {
            throw new ArgumentOutOfRangeException(nameof(options), runner, "Unknown pipe runner.");
        }

        if (!Enum.IsDefined(options.Scheduler))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.Scheduler, "Unknown pipe scheduler.");
        }

        if (!Enum.IsDefined(options.FullMode))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.FullMode, "Unknown pipe full mode.");
        }

        if (!Enum.IsDefined(options.Distribution))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.Distribution, "Unknown pipe distribution.");
        }

        var sharing = consumers > 1 && options.Distribution == PipeDistribution.WorkSharing;
        var bounded = options.Capacity is not null || kind == PipeKind.Ring;
        switch (kind)
        {
            case PipeKind.Ring when options.Producers != 1:
                throw new ArgumentException($"A ring accepts exactly one producer; {options.Producers} were declared.", nameof(options));
            case PipeKind.ObserveOn when sharing:
                throw new ArgumentException($"A {kind} pipe cannot share work between consumers; use broadcast or another kind.", nameof(options));
            case PipeKind.ObserveOn or PipeKind.ReaderWriterLockQueue or PipeKind.BatchDrainQueue when options.Capacity is not null:
                throw new ArgumentException($"A {kind} pipe is unbounded; leave Capacity unset.", nameof(options));
            case PipeKind.ObserveOn when options.Runner == PipeRunner.ThreadPool && options.Scheduler == PipeScheduler.EventLoop:
                throw new ArgumentException($"An event loop is a thread of its own; {PipeRunner.ThreadPool} needs the {PipeScheduler.TaskPool} or {PipeScheduler.ThreadPool} scheduler.", nameof(options));
            case not PipeKind.Channel when options.FullMode != PipeFullMode.Wait:
                throw new ArgumentException($"Only a bounded Channel pipe supports {options.FullMode}.", nameof(options));
            case PipeKind.Channel when options.FullMode != PipeFullMode.Wait && !bounded:
                throw new ArgumentException($"{options.FullMode} needs a Capacity.", nameof(options));
            default:
                break;
        }
    }
}
