namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>
/// The second ceiling: the least a core-to-core handoff can cost here, so that no contender can honestly beat it. The
/// suite's blocks through a <see cref="RawRing{T, THandler}"/> (its spin, pause and yield policy is the ceiling's), each
/// block posted whole and published at its end; the consumer counts and checks each message as every path's does.
/// </summary>
public sealed class RawRingPath : IMessagePath
{
    private readonly RawRing<Message, Counting> _ring;

    public RawRingPath()
    {
        Consumers = new ConsumerGroup(1, 1, sharesWork: false);
        var signal = Consumers.Signal;
        _ring = new RawRing<Message, Counting>(new Counting(Consumers.Members[0]), signal.Fail);
    }

    public ConsumerGroup Consumers { get; }

    public void Post(Message[] messages) => _ring.PostBlock(messages);

    public void Complete() => _ring.Stop(RunLimit.Timeout);

    public void Dispose()
    {
        if (_ring.IsRunning)
        {
            _ring.Stop(RunLimit.Timeout);
        }

        Consumers.Dispose();
    }

    private readonly struct Counting(CountingConsumer consumer) : IRawRingHandler<Message>
    {
        public void Handle(Message message) => consumer.Handle(message);
    }
}
