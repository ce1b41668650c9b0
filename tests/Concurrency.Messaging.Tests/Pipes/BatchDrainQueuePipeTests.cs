namespace Concurrency.Messaging.Tests.Pipes;

public sealed class BatchDrainQueuePipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.BatchDrainQueue;
}
