using Concurrency.Messaging.Connectors;

namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>
/// A connector's own overhead: OnNext fanned out to N subscribers on the producer's thread, no thread hop, each call
/// serialized and each subscriber isolated from the others' exceptions (a throwing subscriber fails the benchmark here).
/// </summary>
public sealed class ConnectorPath : IMessagePath
{
    private readonly IConnector<Message> _connector;

    public ConnectorPath(int subscribers)
    {
        Consumers = new ConsumerGroup(subscribers, 1, sharesWork: false);
        _connector = Connector.Create<Message>(new ConnectorOptions { SubscriberFaulted = Consumers.Signal.Fail });
        foreach (var consumer in Consumers.Members)
        {
            _connector.Output.Subscribe(consumer.Handle, Consumers.Signal.Fail, Consumers.CountCompletion);
        }
    }

    public ConsumerGroup Consumers { get; }

    public void Post(Message[] messages)
    {
        var input = _connector.Input;
        foreach (var message in messages)
        {
            input.OnNext(message);
        }
    }

    public void Complete()
    {
        _connector.Input.OnCompleted();
        Consumers.VerifyEveryCompletion("The connector");
    }

    public void Dispose()
    {
        _connector.Dispose();
        Consumers.Dispose();
    }
}
