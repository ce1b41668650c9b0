namespace Concurrency.Messaging.Tests.Pipes;

public sealed class BlockingCollectionPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.BlockingCollection;
}
