namespace Concurrency.Messaging.Tests.Pipes;

public sealed class BoundedChannelPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.Channel;

    protected override PipeOptions BaseOptions => new() { Capacity = 64 };
}
