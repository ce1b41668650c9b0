using System.Threading.Tasks.Dataflow;
using Concurrency.Benchmarks.Harness;

namespace Concurrency.Benchmarks.Paths;

/// <summary>TPL Dataflow's ActionBlock, the other path .NET users pick: one producer, one consumer, unbounded.</summary>
public sealed class ActionBlockPath : IMessagePath
{
    private readonly CountingConsumer _consumer = new();
    private readonly ActionBlock<Message> _block;

    public ActionBlockPath()
        => _block = new ActionBlock<Message>(_consumer.Handle, new ExecutionDataflowBlockOptions { SingleProducerConstrained = true });

    public IReadOnlyList<CountingConsumer> Consumers => [_consumer];

    public bool SharesWork => false;

    public void Run(Message[] messages)
    {
        foreach (var message in messages)
        {
            if (!_block.Post(message))
            {
                throw new InvalidOperationException("The ActionBlock refused a message.");
            }
        }

        _block.Complete();
        RunLimit.Wait(_block.Completion, "The ActionBlock's drain");
    }

    public void Dispose() => _block.Complete();
}
