using System.Diagnostics.Metrics;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// One kind of event of one instance (a gate's rejections, a pool's retired workers): counted in a field of its own, read
/// into the instance's metrics, and on the process-wide counter of its kind while a listener is enabled on it.
/// </summary>
/// <remarks>
/// A mutable struct, so that counting costs what the two lines it stands for cost: keep it in a field that is not
/// <see langword="readonly"/>, or every <see cref="Add"/> counts on a copy.
/// </remarks>
/// <param name="instrument">The process-wide counter of this kind of event.</param>
internal struct EventCount(Counter<long> instrument)
{
    private readonly Counter<long> _instrument = instrument;
    private long _count; // Interlocked: added to and read by any thread

    /// <summary>Counts one event.</summary>
    public void Add()
    {
        Interlocked.Increment(ref _count);
        LibraryMeter.Count(_instrument);
    }

    /// <summary>Gets the events counted so far.</summary>
    public long Read() => Interlocked.Read(ref _count);
}
