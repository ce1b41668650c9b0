using System.Diagnostics.Metrics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// The actors' instruments on <see cref="LibraryMeter"/>. Messages handled and actors alive are observable, summed over
/// the live actor systems when a listener collects: each actor counts what it handled in a field of its own, a plain add
/// once per turn, and a system adds a terminated actor's count to its own total. A system that shut down adds its total to
/// the retired one and leaves the live set, both under <see cref="Gate"/>, which a collection holds too, so the sum never
/// goes back. Dead letters, failures and discards are counters, added to only while a listener is enabled on them: they
/// happen off the hot path (a refused post, a handler's throw, a stop that discards).
/// </summary>
/// <remarks>
/// A system that is never shut down and then collected leaves the live set without retiring (it is held weakly): its
/// count drops out of the sum. Dispose actor systems. No mailbox-depth gauge: it would visit every live actor at each
/// collection and read each queue under its lock.
/// </remarks>
internal static class ActorInstruments
{
    private static readonly Lock Gate = new(); // taken before a system's own lock, never after
    private static long s_retiredHandled;      // guarded by Gate

    // Every instrument is made when the type is first touched (a system registering), so a listener sees all of them at once.
    public static LiveInstances<ActorSystem> Live { get; } = new();

    public static ObservableCounter<long> Handled { get; } = LibraryMeter.Meter.CreateObservableCounter(
        "concurrency.actor.messages.handled", SumHandled, "{message}",
        "Messages an actor's handler returned from (an async handler: started); a throw counts as a failure instead.");

    public static ObservableUpDownCounter<long> Alive { get; } = Live.Gauge("concurrency.actor.alive", static system => system.ActorCount, "{actor}", "Actors spawned and not yet terminated.");

    public static Counter<long> DeadLetters { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.actor.dead_letters", "{message}", "Messages sent to stopped actors, and those discarded at a stop.");

    public static Counter<long> Failures { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.actor.failures", "{exception}", "Exceptions of handlers (or factories, on restart) reported to supervision.");

    public static Counter<long> Discarded { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.actor.messages.discarded", "{message}", "Messages accepted and discarded unhandled: a discarding stop, or a supervisor's stop.");

    /// <summary>Once per system, after every actor it spawned terminated and no more can be spawned: its count is final.</summary>
    public static void Retire(ActorSystem system)
    {
        lock (Gate)
        {
            if (Live.Remove(system))
            {
                s_retiredHandled += system.HandledCount;
            }
        }
    }

    private static long SumHandled()
    {
        lock (Gate)
        {
            return s_retiredHandled + Live.Sum(static system => system.HandledCount);
        }
    }
}
