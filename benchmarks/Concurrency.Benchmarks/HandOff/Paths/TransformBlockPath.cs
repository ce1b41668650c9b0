using System.Threading.Tasks.Dataflow;

namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>
/// TPL Dataflow's answer to ordered parallel work: a TransformBlock running the selector on up to N messages at once with
/// EnsureOrdered, linked to an ActionBlock consumer that must see the results in source order.
/// </summary>
public sealed class TransformBlockPath : IMessagePath
{
    private readonly TransformBlock<Message, Message> _transform;
    private readonly ActionBlock<Message> _sink;

    public TransformBlockPath(Func<Message, Message> selector, int degreeOfParallelism)
    {
        Consumers = new ConsumerGroup(1, 1, sharesWork: false);
        _transform = new TransformBlock<Message, Message>(
            selector,
            new ExecutionDataflowBlockOptions { EnsureOrdered = true, MaxDegreeOfParallelism = degreeOfParallelism, SingleProducerConstrained = true });
        _sink = new ActionBlock<Message>(Consumers.Members[0].Handle);
        _transform.LinkTo(_sink, new DataflowLinkOptions { PropagateCompletion = true });
        Consumers.Signal.FailWhenFaulted(_sink.Completion, "The TransformBlock → ActionBlock chain");
    }

    public ConsumerGroup Consumers { get; }

    public void Post(Message[] messages)
    {
        foreach (var message in messages)
        {
            if (!_transform.Post(message))
            {
                throw new InvalidOperationException("The TransformBlock refused a message.");
            }
        }
    }

    public void Complete()
    {
        _transform.Complete();
        RunLimit.Wait(_sink.Completion, "The TransformBlock → ActionBlock completion");
    }

    public void Dispose()
    {
        _transform.Complete();
        Consumers.Dispose();
    }
}
