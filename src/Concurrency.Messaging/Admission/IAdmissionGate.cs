namespace Concurrency.Messaging.Admission;

/// <summary>
/// A limit on outstanding work items. Each admitted item holds an <see cref="AdmissionLease"/> until it is done; disposing
/// the lease makes room for the next. The outstanding count never exceeds the limit, not even for an instant.
/// </summary>
public interface IAdmissionGate
{
    /// <summary>Gets the most work items outstanding at once.</summary>
    int Limit { get; }

    /// <summary>Gets a snapshot of the gate's counters.</summary>
    AdmissionMetrics Metrics { get; }

    /// <summary>Admits an item if the limit allows; never waits and never throttles.</summary>
    /// <param name="lease">The admitted item's lease, to dispose when it is done; <see langword="null"/> when rejected.</param>
    /// <returns><see langword="true"/> if admitted; <see langword="false"/> at the limit (counted as rejected).</returns>
    bool TryEnter([System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out AdmissionLease? lease);

    /// <summary>
    /// Admits an item: at once under <see cref="AdmissionPolicy.Reject"/>; under <see cref="AdmissionPolicy.Throttle"/>, after
    /// <see cref="AdmissionOptions.ThrottleDelay"/> when the threshold is reached. An item is not outstanding while it is delayed.
    /// </summary>
    /// <param name="cancellationToken">Cancels a throttled entry's delay; the item is then not admitted.</param>
    /// <returns>The admitted item's lease, to dispose when it is done.</returns>
    /// <exception cref="AdmissionRejectedException">The limit was reached (after the delay, when throttled).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled before the item was admitted.</exception>
    ValueTask<AdmissionLease> EnterAsync(CancellationToken cancellationToken = default);
}
