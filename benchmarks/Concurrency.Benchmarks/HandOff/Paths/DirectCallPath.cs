namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>
/// The first ceiling: the consumer's handler called directly on the producer's thread, no handoff at all. Called through a
/// delegate, as every contender calls its handler, so the ceiling does not gain an inlining the others cannot have.
/// </summary>
public sealed class DirectCallPath : IMessagePath
{
    private readonly Action<Message> _handle;

    public DirectCallPath()
    {
        Consumers = new ConsumerGroup(1, 1, sharesWork: false);
        _handle = Consumers.Members[0].Handle;
    }

    public ConsumerGroup Consumers { get; }

    public void Post(Message[] messages)
    {
        var handle = _handle;
        foreach (var message in messages)
        {
            handle(message);
        }
    }

    public void Complete()
    {
    }

    public void Dispose() => Consumers.Dispose();
}
