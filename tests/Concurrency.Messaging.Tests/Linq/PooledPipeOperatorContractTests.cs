namespace Concurrency.Messaging.Tests.Linq;

/// <summary>
/// A pipe operator whose consumer runs as thread-pool turns (no thread of its own), with a budget of 64 items a turn, so
/// that a burst ends turns with items left: the same Rx grammar must hold across the turns.
/// </summary>
public abstract class PooledPipeOperatorContractTests : PipeOperatorContractTests
{
    protected abstract PipeKind Kind { get; }

    protected virtual int? Capacity => null;

    protected override bool UsesDedicatedThread => false;

    protected override IObservable<T> Apply<T>(IObservable<T> source)
        => source.ObserveOnPipe(Kind, new PipeOptions { Capacity = Capacity, Runner = PipeRunner.ThreadPool, MessagesPerTurn = 64 });
}
