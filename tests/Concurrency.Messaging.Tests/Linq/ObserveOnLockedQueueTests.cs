namespace Concurrency.Messaging.Tests.Linq;

public sealed class ObserveOnLockedQueueTests : PipeOperatorContractTests
{
    protected override IObservable<T> Apply<T>(IObservable<T> source) => source.ObserveOnLockedQueue();
}
