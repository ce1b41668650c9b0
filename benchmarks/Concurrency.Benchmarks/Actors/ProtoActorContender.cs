using Proto;
using Proto.Mailbox;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Proto.Actor as a peer: one actor system, every actor on the default dispatcher (the .NET thread pool) with the default
/// unbounded mailbox; Proto.Actor logs nowhere unless given a logger factory. Sends use <c>Send</c>, which carries no
/// sender.
/// </summary>
/// <remarks>
/// The throughput is set on <see cref="Dispatchers.DefaultDispatcher"/> itself, not through a dispatcher of our own: a
/// mailbox on the default dispatcher queues itself to the thread pool directly, any other dispatcher goes through a
/// delegate and a Task per scheduling. That dispatcher is process-wide, so the last contender built sets it for all; a
/// benchmark process builds one.
/// </remarks>
internal sealed class ProtoActorContender : ActorContender<PID>
{
    /// <summary>Proto.Actor's own default: messages an actor handles before it gives its thread back.</summary>
    public const int DefaultThroughput = 300;

    private static readonly TimeSpan ShutdownLimit = TimeSpan.FromSeconds(10);

    private readonly ActorSystem _system; // created in the constructor, shut down in ShutDown: the benchmark thread's

    public ProtoActorContender(int throughput = DefaultThroughput)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(throughput, 1);
        Dispatchers.DefaultDispatcher.Throughput = throughput;
        _system = new ActorSystem();
    }

    protected override PID SpawnPinger(PingerTally tally) => _system.Root.Spawn(Props.FromProducer(() => new ProtoPinger(tally)));

    protected override PID SpawnRelay(DeliveryCount count, RingLaps? laps) => _system.Root.Spawn(Props.FromProducer(() => new ProtoRelay(count, laps)));

    protected override void Send(PID to, object message) => _system.Root.Send(to, message);

    /// <summary>Bounded: a system that will not stop in time is left to the process's exit rather than hang the run.</summary>
    protected override void ShutDown() => _system.ShutdownAsync().Wait(ShutdownLimit);
}
