namespace Concurrency.Messaging.Pipes;

/// <summary>How a pipe's consumers run: the queue is chosen by <see cref="PipeKind"/>, the runner by this.</summary>
public enum PipeRunner
{
    /// <summary>Each consumer owns a background thread for the pipe's whole life; it pauses, yields, then parks when idle.</summary>
    DedicatedThread,

    /// <summary>
    /// Each consumer runs as turns on the .NET thread pool: a post that finds it idle queues one turn, which handles up to
    /// <see cref="PipeOptions.MessagesPerTurn"/> messages and then yields the thread. An idle consumer holds no thread and
    /// costs no CPU. Supported by <see cref="PipeKind.BatchDrainQueue"/> with one consumer per queue (one consumer, or broadcast).
    /// </summary>
    ThreadPool,
}
