using System.Reactive.Subjects;

namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>
/// The connector's Rx peers: a plain <see cref="Subject{T}"/> fanned out to N subscribers on the producer's thread, or the
/// same subject behind <see cref="Subject.Synchronize{TSource, TResult}(ISubject{TSource, TResult})"/>, which serializes
/// concurrent producers with a lock, as the connector does, but isolates no subscriber from another's exception.
/// </summary>
public sealed class SubjectPath : IMessagePath
{
    private readonly Subject<Message> _subject = new();
    private readonly ISubject<Message> _input; // the subject itself or its synchronized wrapper

    public SubjectPath(int subscribers, bool synchronize)
    {
        Consumers = new ConsumerGroup(subscribers, 1, sharesWork: false);
        _input = synchronize ? Subject.Synchronize(_subject) : _subject;
        foreach (var consumer in Consumers.Members)
        {
            _input.Subscribe(consumer.Handle, Consumers.Signal.Fail, Consumers.CountCompletion);
        }
    }

    public ConsumerGroup Consumers { get; }

    public void Post(Message[] messages)
    {
        var input = _input;
        foreach (var message in messages)
        {
            input.OnNext(message);
        }
    }

    public void Complete()
    {
        _input.OnCompleted();
        Consumers.VerifyEveryCompletion("The subject");
    }

    public void Dispose()
    {
        _subject.Dispose();
        Consumers.Dispose();
    }
}
