namespace Concurrency.Messaging.Tests.Linq;

public sealed class ObserveOnRingTests : PipeOperatorContractTests
{
    protected override IObservable<T> Apply<T>(IObservable<T> source) => source.ObserveOnRing(capacity: 256);
}
