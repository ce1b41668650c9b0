namespace Concurrency.Messaging.Tests.Linq;

public sealed class ObserveOnBoundedChannelTests : PipeOperatorContractTests
{
    protected override IObservable<T> Apply<T>(IObservable<T> source) => source.ObserveOnChannel(capacity: 128);

    protected override bool UsesDedicatedThread => false;
}
