
namespace Concurrency.Benchmarks.Actors;

/// <summary>The messages one actor received, counted on delivery.</summary>
/// <remarks>
/// Concurrency rule: during a run only its actor writes it (an actor handles one message at a time). The benchmark thread
/// resets it before the run's first send and reads it after the run's signal; the mailbox's enqueue and the signal order
/// those with the actor's writes, so the field needs no atomics.
/// </remarks>
internal sealed class DeliveryCount
{
    private long _value; // see the remarks: the actor during a run, the benchmark thread between runs

    public long Value => _value;

    public void Add() => _value++;

    public void Reset() => _value = 0;
}
