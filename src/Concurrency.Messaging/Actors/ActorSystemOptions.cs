namespace Concurrency.Messaging.Actors;

/// <summary>Options for an <see cref="ActorSystem"/>.</summary>
public sealed record ActorSystemOptions
{
    /// <summary>The default of <see cref="Throughput"/>: Proto.Actor's default; Akka.NET's is 30.</summary>
    public const int DefaultThroughput = 300;

    /// <summary>Gets how many messages an actor handles in one turn before it yields its thread, unless the actor sets its own.</summary>
    public int Throughput { get; init; } = DefaultThroughput;

    /// <summary>
    /// Gets how long <see cref="ActorRef{T}.Ask{TReply}(T, CancellationToken)"/> waits for a reply: positive and at most
    /// <see cref="uint.MaxValue"/> - 1 milliseconds (the longest a timer accepts), or <see cref="Timeout.InfiniteTimeSpan"/>.
    /// Defaults to 30 seconds.
    /// </summary>
    public TimeSpan AskTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>Gets the clock that times Ask timeouts (a fake one in tests). Defaults to <see cref="TimeProvider.System"/>.</summary>
    public TimeProvider TimeProvider { get; init; } = TimeProvider.System;
}
