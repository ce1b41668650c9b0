namespace Concurrency.Messaging.Tests.Pipes;

public sealed class ReaderWriterLockQueuePipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.ReaderWriterLockQueue;
}
