using Concurrency.Messaging.Admission;

namespace Concurrency.Benchmarks.Pools.Admission;

/// <summary>
/// The admission game's contenders, one column of the comparison each: a name and the gate's options. "none" is a gate
/// whose limit is never reached, so the baseline pays the same counters and still reports the maximum outstanding, as the
/// seed's run with the limit removed did.
/// </summary>
public static class AdmissionSetup
{
    /// <summary>The seed's limit of outstanding transactions.</summary>
    public const int Limit = 200;

    /// <summary>The seed's throttling threshold ("only when the outstanding transactions got high (e.g. 100)").</summary>
    public const int Threshold = 100;

    /// <summary>The throttle's delay: five times an item's mean hold here, as the seed's delays were long beside its transactions.</summary>
    public static readonly TimeSpan ThrottleDelay = TimeSpan.FromMilliseconds(1);

    public static ContenderRegistry<AdmissionOptions> Registry { get; } = new("admission",
    [
        new("none", ContenderFamily.Baseline, new AdmissionOptions { Limit = int.MaxValue }) { Note = "no limit reached: the seed's run with the limit removed" },
        new("reject", ContenderFamily.Ours, new AdmissionOptions { Limit = Limit }) { Note = "past the limit an entry is refused" },
        new("throttle", ContenderFamily.Ours, new AdmissionOptions { Limit = Limit, Policy = AdmissionPolicy.Throttle, ThrottleThreshold = Threshold, ThrottleDelay = ThrottleDelay }) { Note = "below the limit, an entry past the threshold is delayed" },
    ]);
}
