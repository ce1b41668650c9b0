namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>An unbounded channel read by a dedicated thread that blocks on the channel's wait (the pooled async loop is the default).</summary>
public sealed class DedicatedThreadUnboundedChannelPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.Channel;

    protected override PipeOptions BaseOptions => new() { Runner = PipeRunner.DedicatedThread };
}
