using System.Collections;
using System.Collections.Concurrent;

namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// The failures an actor system reports on <see cref="ActorSystem.Failures"/> from the moment this is made until it is
/// disposed, in the order reported (turns on any thread report them; the test reads them after).
/// </summary>
internal sealed class FailureLog : IReadOnlyCollection<ActorFailure>, IDisposable
{
    private readonly ConcurrentQueue<ActorFailure> _reported = new();
    private readonly IDisposable _subscription;

    public FailureLog(ActorSystem system) => _subscription = system.Failures.Subscribe(_reported.Enqueue);

    public int Count => _reported.Count;

    public IEnumerator<ActorFailure> GetEnumerator() => _reported.GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    public void Dispose() => _subscription.Dispose();
}
