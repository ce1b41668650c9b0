using Concurrency.Benchmarks.Harness;

namespace Concurrency.Benchmarks.Paths;

/// <summary>The first ceiling: the consumer's handler called directly on the producer's thread, no handoff at all.</summary>
public sealed class DirectCallPath : IMessagePath
{
    private readonly CountingConsumer _consumer = new();

    public IReadOnlyList<CountingConsumer> Consumers => [_consumer];

    public bool SharesWork => false;

    public void Run(Message[] messages)
    {
        var handle = (Action<Message>)_consumer.Handle;
        foreach (var message in messages)
        {
            handle(message);
        }
    }

    public void Dispose()
    {
    }
}
