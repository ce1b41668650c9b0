namespace Concurrency.Messaging.Admission;

/// <summary>What <see cref="IAdmissionGate.EnterAsync(CancellationToken)"/> does as the outstanding count grows.</summary>
public enum AdmissionPolicy
{
    /// <summary>Admit at once up to the limit; past it, reject with <see cref="AdmissionRejectedException"/>.</summary>
    Reject,

    /// <summary>
    /// Delay each entry that finds <see cref="AdmissionOptions.ThrottleThreshold"/> or more items outstanding by
    /// <see cref="AdmissionOptions.ThrottleDelay"/>, then admit it; the limit still rejects.
    /// </summary>
    Throttle,
}
