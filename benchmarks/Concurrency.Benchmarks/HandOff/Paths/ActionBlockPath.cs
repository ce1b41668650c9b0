using System.Threading.Tasks.Dataflow;

namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>TPL Dataflow's ActionBlock, the other path .NET users pick: one producer, one consumer, unbounded.</summary>
public sealed class ActionBlockPath : IMessagePath
{
    private readonly ActionBlock<Message> _block;

    public ActionBlockPath()
    {
        Consumers = new ConsumerGroup(1, 1, sharesWork: false);
        _block = new ActionBlock<Message>(Consumers.Members[0].Handle, new ExecutionDataflowBlockOptions { SingleProducerConstrained = true });
        Consumers.Signal.FailWhenFaulted(_block.Completion, "The ActionBlock");
    }

    public ConsumerGroup Consumers { get; }

    public void Post(Message[] messages)
    {
        foreach (var message in messages)
        {
            if (!_block.Post(message))
            {
                throw new InvalidOperationException("The ActionBlock refused a message.");
            }
        }
    }

    public void Complete()
    {
        _block.Complete();
        RunLimit.Wait(_block.Completion, "The ActionBlock's completion");
    }

    public void Dispose()
    {
        _block.Complete();
        Consumers.Dispose();
    }
}
