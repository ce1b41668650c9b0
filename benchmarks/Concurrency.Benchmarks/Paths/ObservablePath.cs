using System.Reactive.Subjects;
using Concurrency.Benchmarks.Harness;

namespace Concurrency.Benchmarks.Paths;

/// <summary>
/// A Subject whose messages reach the consumer through an Rx operator: Rx's own ObserveOn(scheduler) or one of our drop-in
/// replacements. The full Rx grammar runs: OnNext for every message, then OnCompleted, which ends the run.
/// </summary>
public sealed class ObservablePath : IMessagePath
{
    private readonly Subject<Message> _subject = new();
    private readonly CountingConsumer _consumer = new();
    private readonly ManualResetEventSlim _completed = new();
    private readonly IDisposable _subscription;
    private readonly IDisposable? _scheduler;
    private Exception? _error; // written by the consumer before it sets _completed, read by the runner after

    public ObservablePath(Func<IObservable<Message>, IObservable<Message>> hop, IDisposable? scheduler = null)
    {
        _scheduler = scheduler;
        _subscription = hop(_subject).Subscribe(_consumer.Handle, OnError, _completed.Set);
    }

    public IReadOnlyList<CountingConsumer> Consumers => [_consumer];

    public bool SharesWork => false;

    public void Run(Message[] messages)
    {
        foreach (var message in messages)
        {
            _subject.OnNext(message);
        }

        _subject.OnCompleted();
        RunLimit.Wait(_completed, "The observable's OnCompleted");
        if (_error is not null)
        {
            throw new InvalidOperationException("The observable ended with OnError.", _error);
        }
    }

    public void Dispose()
    {
        _subscription.Dispose();
        _scheduler?.Dispose();
        _subject.Dispose();
        _completed.Dispose();
    }

    private void OnError(Exception error)
    {
        _error = error;
        _completed.Set();
    }
}
