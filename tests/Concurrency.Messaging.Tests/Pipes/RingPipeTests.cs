namespace Concurrency.Messaging.Tests.Pipes;

public sealed class RingPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.Ring;

    protected override PipeOptions BaseOptions => new() { Capacity = 64 };
}
