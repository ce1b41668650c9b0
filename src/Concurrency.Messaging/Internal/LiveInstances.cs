using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// The instances of one kind that are alive now, for the observable gauges that add up their counters when a listener
/// collects. Held weakly: an instance its owner forgot to dispose leaves the set when it is collected, not never.
/// </summary>
/// <typeparam name="T">The instance type.</typeparam>
internal sealed class LiveInstances<T>
    where T : class
{
    private readonly ConditionalWeakTable<T, object?> _live = []; // thread-safe; enumerating it sees a snapshot

    public void Add(T instance) => _live.TryAdd(instance, null);

    /// <returns>Whether <paramref name="instance"/> was live.</returns>
    public bool Remove(T instance) => _live.Remove(instance);

    /// <summary>Adds up <paramref name="read"/> over the live instances.</summary>
    public long Sum(Func<T, long> read)
    {
        long sum = 0;
        foreach (var (instance, _) in _live)
        {
            sum += read(instance);
        }

        return sum;
    }

    /// <summary>Makes a gauge on <see cref="LibraryMeter"/> that adds up <paramref name="read"/> over the live instances when a listener collects.</summary>
    public ObservableUpDownCounter<long> Gauge(string name, Func<T, long> read, string unit, string description)
        => LibraryMeter.Meter.CreateObservableUpDownCounter(name, () => Sum(read), unit, description);
}
