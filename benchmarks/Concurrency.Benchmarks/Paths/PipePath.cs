using Concurrency.Benchmarks.Harness;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Paths;

/// <summary>A library pipe of any kind and topology; producers beyond the first are pre-started threads.</summary>
public sealed class PipePath : IMessagePath
{
    private readonly IPipe<Message> _pipe;
    private readonly CountingConsumer[] _consumers;
    private readonly ProducerThreads? _producers;

    public PipePath(PipeKind kind, PipeOptions options, int consumers = 1)
    {
        _consumers = Enumerable.Range(0, consumers).Select(_ => new CountingConsumer()).ToArray();
        SharesWork = consumers > 1 && options.Distribution == PipeDistribution.WorkSharing;
        _pipe = Pipe.Create(kind, _consumers.Select(c => (Action<Message>)c.Handle).ToArray(), options);
        _producers = options.Producers > 1 ? new ProducerThreads(options.Producers) : null;
    }

    public IReadOnlyList<CountingConsumer> Consumers => _consumers;

    public bool SharesWork { get; }

    public bool Ordered => !SharesWork && _producers is null;

    public void Run(Message[] messages)
    {
        if (_producers is null)
        {
            foreach (var message in messages)
            {
                _pipe.Post(message);
            }
        }
        else
        {
            _producers.Run(messages, message => _pipe.Post(message));
        }

        _pipe.Complete();
        RunLimit.Wait(_pipe.Completion, $"The {_pipe.Kind} pipe's drain");
    }

    public void Dispose()
    {
        // After a run the pipe is already drained; after a failed one this stops its consumers before the next path starts.
        RunLimit.Wait(_pipe.DisposeAsync().AsTask(), $"Disposing the {_pipe.Kind} pipe");
        _producers?.Dispose();
    }
}
