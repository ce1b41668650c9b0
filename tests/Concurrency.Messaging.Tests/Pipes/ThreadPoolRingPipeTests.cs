namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>The ring's queue under the pooled runner, with a budget small enough that turns end with messages left.</summary>
public sealed class ThreadPoolRingPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.Ring;

    protected override PipeOptions BaseOptions => new() { Capacity = 64, Runner = PipeRunner.ThreadPool, MessagesPerTurn = 7 };
}
