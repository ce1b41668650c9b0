namespace Concurrency.Messaging.Pipes;

/// <summary>
/// How a pipe's consumers run. The queue is chosen by <see cref="PipeKind"/>, the runner by this, and every kind runs under
/// either (set through <see cref="PipeOptions.Runner"/>).
/// </summary>
public enum PipeRunner
{
    /// <summary>
    /// Each consumer owns a background thread for the pipe's whole life; when idle it pauses, yields, then parks until a post
    /// wakes it, the same way for every kind (an <see cref="PipeKind.ObserveOn"/> consumer runs on the scheduler's
    /// long-running thread instead). The default for every kind except <see cref="PipeKind.Channel"/>.
    /// </summary>
    DedicatedThread,

    /// <summary>
    /// Each consumer runs as turns on the .NET thread pool: a post that finds it idle queues one turn, which handles up to
    /// <see cref="PipeOptions.MessagesPerTurn"/> messages and then yields the thread. An idle consumer holds no thread and
    /// costs no CPU. The default for <see cref="PipeKind.Channel"/>. Actors run on the same scheduling. An
    /// <see cref="PipeKind.ObserveOn"/> pipe runs as Rx schedules work on the pool (a turn drains what Rx has queued; the
    /// budget does not apply) and cannot use it with <see cref="PipeScheduler.EventLoop"/>, which is a thread by definition.
    /// </summary>
    ThreadPool,
}
