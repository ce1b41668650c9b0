
namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Tells an actor, during setup, the actor it sends to (a ponger's pinger, a pinger's ponger, a ring member's successor),
/// so every send in a run goes to a reference the actor holds, with no sender attached.
/// </summary>
internal sealed record Link<TRef>(TRef To);
