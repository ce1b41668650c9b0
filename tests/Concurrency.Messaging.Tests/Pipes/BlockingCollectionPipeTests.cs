using Concurrency.Messaging.Pipes;
using Xunit;

namespace Concurrency.Messaging.Tests.Pipes;

public sealed class BlockingCollectionPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.BlockingCollection;
}
