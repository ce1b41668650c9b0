namespace Concurrency.Messaging.Tests.Linq;

/// <summary>The batch-drain operator with its consumer run as thread-pool turns.</summary>
public sealed class ObserveOnPooledLockedQueueTests : PipeOperatorContractTests
{
    protected override bool UsesDedicatedThread => false;

    protected override IObservable<T> Apply<T>(IObservable<T> source)
        => source.ObserveOnPipe(PipeKind.BatchDrainQueue, new PipeOptions { Runner = PipeRunner.ThreadPool, MessagesPerTurn = 64 });
}
