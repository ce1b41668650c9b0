using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>A library pipe of any kind and topology; with more than one producer, the producers are pre-started threads.</summary>
public sealed class PipePath : IMessagePath
{
    private readonly PipeKind _kind;
    private readonly IPipe<Message> _pipe;
    private readonly ProducerThreads? _producers;
    private readonly Action<Message> _post; // cached, so a block allocates no delegate

    public PipePath(PipeKind kind, PipeOptions options, int consumers = 1)
    {
        _kind = kind;
        Producers = options.Producers;
        Consumers = new ConsumerGroup(consumers, options.Producers, sharesWork: consumers > 1 && options.Distribution == PipeDistribution.WorkSharing);
        _pipe = Pipe.Create(kind, Consumers.Members.Select(c => (Action<Message>)c.Handle).ToArray(), options);
        Consumers.Signal.FailWhenFaulted(_pipe.Completion, $"The {kind} pipe");
        _producers = options.Producers > 1 ? new ProducerThreads(options.Producers) : null;
        _post = message => _pipe.Post(message);
    }

    public ConsumerGroup Consumers { get; }

    public int Producers { get; }

    public void Post(Message[] messages)
    {
        if (_producers is not null)
        {
            _producers.Run(messages, _post);
            return;
        }

        var pipe = _pipe;
        foreach (var message in messages)
        {
            pipe.Post(message);
        }
    }

    public void Complete()
    {
        _pipe.Complete();
        RunLimit.Wait(_pipe.Completion, $"The {_kind} pipe's completion");
    }

    public void Dispose()
    {
        // After Complete the pipe is already drained; after a failure this stops its consumers before the process moves on.
        RunLimit.Wait(_pipe.DisposeAsync().AsTask(), $"Disposing the {_kind} pipe");
        _producers?.Dispose();
        Consumers.Dispose();
    }
}
