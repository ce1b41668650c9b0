using System.Diagnostics.Metrics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Admission;

/// <summary>
/// The admission gates' instruments on <see cref="LibraryMeter"/>: the counters of <see cref="AdmissionMetrics"/>, summed
/// over every gate of the process. Events are counters, added to only while a listener is enabled on them; the leases
/// outstanding are observable, read from the live gates when a listener collects.
/// </summary>
internal static class AdmissionInstruments
{
    // Every instrument is made when the type is first touched (a gate registering), so a listener sees all of them at once.
    public static LiveInstances<LimitedAdmissionGate> Live { get; } = new();

    public static ObservableUpDownCounter<long> Outstanding { get; } = Live.Gauge("concurrency.admission.outstanding", gate => gate.Metrics.Outstanding, "{lease}", "Leases admitted and not yet disposed.");

    public static Counter<long> Admitted { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.admission.admitted", "{entry}", "Entries admitted.");

    public static Counter<long> Rejected { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.admission.rejected", "{entry}", "Entries rejected at the limit.");

    public static Counter<long> Throttled { get; } = LibraryMeter.Meter.CreateCounter<long>("concurrency.admission.throttled", "{entry}", "Entries delayed by the throttle.");
}
