namespace Concurrency.Messaging.Tests.Pipes;

public sealed class ObserveOnEventLoopPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.ObserveOn;

    protected override PipeOptions BaseOptions => new() { Scheduler = PipeScheduler.EventLoop };
}
