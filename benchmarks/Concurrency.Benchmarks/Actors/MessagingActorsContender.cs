using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Our actors (<see cref="Concurrency.Messaging.Actors.ActorSystem"/>) with one mailbox kind, at the system's default
/// throughput (300, Proto.Actor's) unless given another. They play the same games as the peers, over the same messages
/// (<c>object</c>-typed actors dispatching on the message's type, as the peers' do), with handlers written as
/// <paramref name="receive"/> says.
/// </summary>
internal sealed class MessagingActorsContender(
    MailboxKind mailbox,
    MessagingReceive receive = MessagingReceive.Sync,
    int throughput = ActorSystemOptions.DefaultThroughput)
    : ActorContender<ActorRef<object>>
{
    private static readonly TimeSpan ShutdownLimit = TimeSpan.FromSeconds(10);

    private readonly Concurrency.Messaging.Actors.ActorSystem _system = new(new ActorSystemOptions { Throughput = throughput });
    private readonly ActorOptions _options = new() { Mailbox = mailbox };

    protected override ActorRef<object> SpawnPinger(PingerTally tally) => _system.Spawn<object>(
        () => receive == MessagingReceive.Sync ? new MessagingPinger(tally) : new MessagingAsyncPinger(tally, receive == MessagingReceive.AsyncYielding),
        _options);

    protected override ActorRef<object> SpawnRelay(DeliveryCount count, RingLaps? laps) => _system.Spawn<object>(
        () => receive == MessagingReceive.Sync ? new MessagingRelay(count, laps) : new MessagingAsyncRelay(count, laps, receive == MessagingReceive.AsyncYielding),
        _options);

    protected override void Send(ActorRef<object> to, object message) => to.Tell(message);

    /// <summary>Bounded: a system that will not stop in time is left to the process's exit rather than hang the run.</summary>
    protected override void ShutDown() => _system.ShutdownAsync().Wait(ShutdownLimit);
}
