namespace Concurrency.Messaging.Tests.Pipes;

public sealed class ObserveOnTaskPoolPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.ObserveOn;
}
