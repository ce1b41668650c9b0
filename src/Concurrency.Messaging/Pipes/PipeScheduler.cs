namespace Concurrency.Messaging.Pipes;

/// <summary>The Rx scheduler a <see cref="PipeKind.ObserveOn"/> pipe observes on.</summary>
public enum PipeScheduler
{
    /// <summary><c>TaskPoolScheduler.Default</c>.</summary>
    TaskPool,

    /// <summary><c>ThreadPoolScheduler.Instance</c>.</summary>
    ThreadPool,

    /// <summary>A new <c>EventLoopScheduler</c> per consumer, disposed with the pipe.</summary>
    EventLoop,
}
