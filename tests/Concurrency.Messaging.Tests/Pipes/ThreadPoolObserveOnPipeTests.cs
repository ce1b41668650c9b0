namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>Rx ObserveOn without its long-running thread: Rx drains in pool work items.</summary>
public sealed class ThreadPoolObserveOnPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.ObserveOn;

    protected override PipeOptions BaseOptions => new() { Runner = PipeRunner.ThreadPool };
}
