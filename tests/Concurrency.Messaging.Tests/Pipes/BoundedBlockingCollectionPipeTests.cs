namespace Concurrency.Messaging.Tests.Pipes;

public sealed class BoundedBlockingCollectionPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.BlockingCollection;

    protected override PipeOptions BaseOptions => new() { Capacity = 64 };
}
