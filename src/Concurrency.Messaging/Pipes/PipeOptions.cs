namespace Concurrency.Messaging.Pipes;

/// <summary>Options for <see cref="Pipe.Create{T}(PipeKind, IReadOnlyList{Action{T}}, PipeOptions?)"/>.</summary>
public sealed record PipeOptions
{
    /// <summary>Gets the number of threads that will post concurrently. Defaults to 1.</summary>
    /// <remarks>A <see cref="PipeKind.Ring"/> accepts exactly one producer. Channels set <c>SingleWriter</c> from it.</remarks>
    public int Producers { get; init; } = 1;

    /// <summary>Gets how messages are handed out when there is more than one consumer. Defaults to <see cref="PipeDistribution.Broadcast"/>.</summary>
    public PipeDistribution Distribution { get; init; } = PipeDistribution.Broadcast;

    /// <summary>
    /// Gets the capacity of a bounded pipe, or <see langword="null"/> for unbounded. Required for <see cref="PipeKind.Ring"/>
    /// (default 4096, rounded up to a power of two); supported by <see cref="PipeKind.Channel"/> and <see cref="PipeKind.BlockingCollection"/>.
    /// </summary>
    public int? Capacity { get; init; }

    /// <summary>Gets what a bounded <see cref="PipeKind.Channel"/> does when full. Other kinds support only <see cref="PipeFullMode.Wait"/>.</summary>
    public PipeFullMode FullMode { get; init; } = PipeFullMode.Wait;

    /// <summary>Gets the scheduler of a <see cref="PipeKind.ObserveOn"/> pipe. Defaults to <see cref="PipeScheduler.TaskPool"/>.</summary>
    public PipeScheduler Scheduler { get; init; } = PipeScheduler.TaskPool;

    /// <summary>
    /// Gets how the consumers run, or <see langword="null"/> (the default) for the kind's own: <see cref="PipeRunner.ThreadPool"/>
    /// for <see cref="PipeKind.Channel"/>, <see cref="PipeRunner.DedicatedThread"/> for every other kind.
    /// </summary>
    public PipeRunner? Runner { get; init; }

    /// <summary>
    /// Gets how many messages a <see cref="PipeRunner.ThreadPool"/> consumer handles in one turn before it yields its thread
    /// to other work (the fairness knob actor runtimes call throughput). Defaults to <see cref="DefaultMessagesPerTurn"/>.
    /// </summary>
    public int MessagesPerTurn { get; init; } = DefaultMessagesPerTurn;

    /// <summary>The default of <see cref="MessagesPerTurn"/>.</summary>
    public const int DefaultMessagesPerTurn = 1024;

    /// <summary>
    /// Gets a token that aborts the pipe: consumers stop, what they had not handled is counted in
    /// <see cref="IPipe{T}.UnhandledCount"/>, and <see cref="IPipe{T}.Completion"/> is cancelled.
    /// </summary>
    public CancellationToken AbortToken { get; init; }

    /// <summary>
    /// Gets whether a single-producer kind serializes posts that arrive from several threads at once instead of refusing
    /// them. Set by the Rx operators, which must tolerate a source that breaks the Rx grammar as Rx's ObserveOn does.
    /// </summary>
    internal bool ToleratesConcurrentProducers { get; init; }
}
