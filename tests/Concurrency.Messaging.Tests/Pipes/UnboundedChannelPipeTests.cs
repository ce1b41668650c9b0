namespace Concurrency.Messaging.Tests.Pipes;

public sealed class UnboundedChannelPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.Channel;
}
