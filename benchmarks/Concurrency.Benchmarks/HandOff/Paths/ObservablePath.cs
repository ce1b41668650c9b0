using System.Reactive.Subjects;

namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>
/// A Subject whose messages reach the consumer through an Rx operator: Rx's own ObserveOn(scheduler) or one of our drop-in
/// replacements. The full Rx grammar runs over the path's life: OnNext for every message of every block, then one
/// OnCompleted in the global cleanup.
/// </summary>
public sealed class ObservablePath : IMessagePath
{
    private readonly Subject<Message> _subject = new();
    private readonly ManualResetEventSlim _terminated = new(); // set by the consumer's OnCompleted or OnError
    private readonly IDisposable _subscription;
    private readonly IDisposable? _scheduler;
    private Exception? _error; // written by the consumer before it sets _terminated, read by the runner after

    public ObservablePath(Func<IObservable<Message>, IObservable<Message>> hop, IDisposable? scheduler = null)
    {
        Consumers = new ConsumerGroup(1, 1, sharesWork: false);
        _scheduler = scheduler;
        _subscription = hop(_subject).Subscribe(Consumers.Members[0].Handle, OnError, _terminated.Set);
    }

    public ConsumerGroup Consumers { get; }

    public void Post(Message[] messages)
    {
        foreach (var message in messages)
        {
            _subject.OnNext(message);
        }
    }

    public void Complete()
    {
        _subject.OnCompleted();
        RunLimit.Wait(_terminated, "The observable's OnCompleted");
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
        _terminated.Dispose();
        Consumers.Dispose();
    }

    private void OnError(Exception error)
    {
        _error = error;
        _terminated.Set();
        Consumers.Signal.Fail(error);
    }
}
