namespace Concurrency.Messaging.Actors;

/// <summary>Options for one actor, given to <see cref="ActorSystem.Spawn{T}(Func{Actor{T}}, ActorOptions?)"/>.</summary>
public sealed record ActorOptions
{
    /// <summary>
    /// The capacity of a bounded mailbox (<see cref="MailboxKind.BoundedChannel"/>, <see cref="MailboxKind.BoundedBatchDrain"/>)
    /// when <see cref="Capacity"/> is not set: the seed's.
    /// </summary>
    public const int DefaultChannelCapacity = 1024;

    /// <summary>Gets the actor's name, used in errors, dead letters and failures. Defaults to one made up from the actor's number.</summary>
    public string? Name { get; init; }

    /// <summary>Gets the mailbox's queue. Defaults to <see cref="MailboxKind.BatchDrain"/>.</summary>
    public MailboxKind Mailbox { get; init; } = MailboxKind.BatchDrain;

    /// <summary>
    /// Gets the capacity of a bounded mailbox (<see cref="MailboxKind.BoundedChannel"/>, <see cref="MailboxKind.BoundedBatchDrain"/>;
    /// default <see cref="DefaultChannelCapacity"/>): how many messages may wait in it. The messages a turn has taken out no
    /// longer count. A <see cref="MailboxKind.BatchDrain"/> mailbox is unbounded and refuses a capacity.
    /// </summary>
    public int? Capacity { get; init; }

    /// <summary>Gets what telling a full bounded mailbox does. Defaults to <see cref="MailboxFullMode.Wait"/>.</summary>
    public MailboxFullMode FullMode { get; init; } = MailboxFullMode.Wait;

    /// <summary>
    /// Gets how many messages the actor handles in one turn before it gives its thread to other actors (the fairness knob
    /// Akka.NET and Proto.Actor call throughput). Defaults to <see cref="ActorSystemOptions.Throughput"/>.
    /// </summary>
    public int? Throughput { get; init; }

    /// <summary>
    /// Gets the supervisor: what to do after the handler threw. Defaults to <see cref="SupervisionDirective.Restart"/> for every
    /// exception. Every failure is also reported on <see cref="ActorSystem.Failures"/>.
    /// </summary>
    public Func<Exception, SupervisionDirective>? Supervisor { get; init; }
}
