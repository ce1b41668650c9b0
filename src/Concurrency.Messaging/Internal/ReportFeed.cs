using System.Reactive.Subjects;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// A feed of reports (a failure, a dead letter) that subscribers observe as they happen, raised on threads that must not die
/// of a subscriber's bug: a pool worker, an actor's turn. The one policy for every such feed: a subscriber that throws has
/// broken its contract; its exception is counted in <see cref="SubscriberErrors"/> and dropped, and the reporting thread
/// carries on. The report is then lost to the subscribers after the one that threw.
/// </summary>
/// <typeparam name="T">The report type.</typeparam>
internal sealed class ReportFeed<T>
{
    private readonly ISubject<T> _subject = Subject.Synchronize(new Subject<T>()); // serializes the calls of reporting threads
    private long _subscriberErrors; // Interlocked

    /// <summary>Gets the feed, for subscribers.</summary>
    public IObservable<T> Observable => _subject;

    /// <summary>Gets how many reports a subscriber threw on.</summary>
    public long SubscriberErrors => Interlocked.Read(ref _subscriberErrors);

    /// <summary>Tells the subscribers; never throws what a subscriber threw.</summary>
    public void Report(T report)
    {
        try
        {
            _subject.OnNext(report);
        }
        catch (Exception)
        {
            Interlocked.Increment(ref _subscriberErrors); // counted and dropped: see the class remarks
        }
    }
}
