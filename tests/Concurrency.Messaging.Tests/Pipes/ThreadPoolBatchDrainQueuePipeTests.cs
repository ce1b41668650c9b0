namespace Concurrency.Messaging.Tests.Pipes;

public sealed class ThreadPoolBatchDrainQueuePipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.BatchDrainQueue;

    protected override PipeOptions BaseOptions => new() { Runner = PipeRunner.ThreadPool };
}
