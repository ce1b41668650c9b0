namespace Concurrency.Messaging.Tests.Linq;

/// <summary>The ring operator with its consumer run as thread-pool turns: the same Rx grammar, no thread of its own.</summary>
public sealed class ObserveOnPooledRingTests : PipeOperatorContractTests
{
    protected override bool UsesDedicatedThread => false;

    protected override IObservable<T> Apply<T>(IObservable<T> source)
        => source.ObserveOnPipe(PipeKind.Ring, new PipeOptions { Capacity = 256, Runner = PipeRunner.ThreadPool, MessagesPerTurn = 64 });
}
