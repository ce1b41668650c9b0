using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Our actors, for the footprint command: one actor per instance of a counting behaviour, synchronous or async.</summary>
internal sealed class MessagingFootprint(MailboxKind mailbox, bool asyncReceive = false) : IFootprintContender
{
    private readonly ActorSystem _system = new();
    private ActorRef<int>[] _actors = [];

    public void Spawn(int count, Action received)
    {
        // One factory and one options object for all: what a program spawning many alike actors would do.
        var options = new ActorOptions { Mailbox = mailbox };
        Func<Actor<int>> factory = asyncReceive ? () => new AsyncCounting(received) : () => new Counting(received);
        _actors = new ActorRef<int>[count];
        for (var i = 0; i < count; i++)
        {
            _actors[i] = _system.Spawn(factory, options);
        }
    }

    public void TellEach()
    {
        foreach (var actor in _actors)
        {
            actor.Tell(1);
        }
    }

    public void Dispose() => _system.ShutdownAsync().Wait(TimeSpan.FromSeconds(60));

    private sealed class Counting(Action received) : Actor<int>
    {
        protected override void Receive(int message) => received();
    }

    private sealed class AsyncCounting(Action received) : AsyncActor<int>
    {
        protected override ValueTask ReceiveAsync(int message)
        {
            received();
            return default;
        }
    }
}
