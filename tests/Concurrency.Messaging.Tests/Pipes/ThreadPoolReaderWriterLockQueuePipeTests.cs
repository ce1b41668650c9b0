namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>The 2011 queue under the pooled runner, with a budget small enough that turns end with messages left.</summary>
public sealed class ThreadPoolReaderWriterLockQueuePipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.ReaderWriterLockQueue;

    protected override PipeOptions BaseOptions => new() { Runner = PipeRunner.ThreadPool, MessagesPerTurn = 7 };
}
