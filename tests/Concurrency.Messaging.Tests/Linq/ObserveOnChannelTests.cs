namespace Concurrency.Messaging.Tests.Linq;

public sealed class ObserveOnChannelTests : PipeOperatorContractTests
{
    protected override IObservable<T> Apply<T>(IObservable<T> source) => source.ObserveOnChannel();

    protected override bool UsesDedicatedThread => false;
}
