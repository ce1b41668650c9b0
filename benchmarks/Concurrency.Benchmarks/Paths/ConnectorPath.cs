using Concurrency.Benchmarks.Harness;
using Concurrency.Messaging.Connectors;

namespace Concurrency.Benchmarks.Paths;

/// <summary>A connector's own overhead: OnNext fanned out to N subscribers on the producer's thread, no thread hop.</summary>
public sealed class ConnectorPath : IMessagePath
{
    private readonly IConnector<Message> _connector = Connector.Create<Message>();
    private readonly CountingConsumer[] _consumers;

    public ConnectorPath(int subscribers)
    {
        _consumers = Enumerable.Range(0, subscribers).Select(_ => new CountingConsumer()).ToArray();
        foreach (var consumer in _consumers)
        {
            _connector.Output.Subscribe(consumer.Handle);
        }
    }

    public IReadOnlyList<CountingConsumer> Consumers => _consumers;

    public bool SharesWork => false;

    public void Run(Message[] messages)
    {
        var input = _connector.Input;
        foreach (var message in messages)
        {
            input.OnNext(message);
        }

        input.OnCompleted();
    }

    public void Dispose() => _connector.Dispose();
}
