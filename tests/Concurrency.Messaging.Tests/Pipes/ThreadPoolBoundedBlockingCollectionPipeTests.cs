namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>A bounded BlockingCollection under the pooled runner: consumers on the pool free the room producers wait for.</summary>
public sealed class ThreadPoolBoundedBlockingCollectionPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.BlockingCollection;

    protected override PipeOptions BaseOptions => new() { Capacity = 64, Runner = PipeRunner.ThreadPool };
}
