namespace Concurrency.Messaging.Admission;

/// <summary>
/// A snapshot of an admission gate's counters. Each counter is read atomically, but not all at one instant: under load,
/// <see cref="Admitted"/> may already count an entry whose lease <see cref="Outstanding"/> does not show yet, or the reverse.
/// </summary>
/// <param name="Outstanding">Leases admitted and not yet disposed.</param>
/// <param name="MaxOutstanding">The highest <see cref="Outstanding"/> since the gate was created; never above the limit.</param>
/// <param name="Admitted">Entries admitted since the gate was created.</param>
/// <param name="Rejected">Entries rejected at the limit (a false <see cref="IAdmissionGate.TryEnter(out AdmissionLease?)"/> included).</param>
/// <param name="Throttled">Entries delayed by the throttle, whether they were then admitted, rejected or canceled.</param>
public sealed record AdmissionMetrics(int Outstanding, int MaxOutstanding, long Admitted, long Rejected, long Throttled);
