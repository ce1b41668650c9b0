namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>A bounded channel read by a dedicated thread.</summary>
public sealed class DedicatedThreadBoundedChannelPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.Channel;

    protected override PipeOptions BaseOptions => new() { Capacity = 64, Runner = PipeRunner.DedicatedThread };
}
