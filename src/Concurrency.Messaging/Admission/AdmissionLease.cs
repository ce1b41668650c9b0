namespace Concurrency.Messaging.Admission;

/// <summary>
/// One admitted work item's place in its gate. Disposing it releases the place exactly once, however many times and from
/// however many threads it is disposed.
/// </summary>
/// <remarks>
/// A class rather than a struct: a struct's once-only guard would live in each copy, so two copies (one in a field, one
/// in a <c>using</c>) could release twice and let the gate admit past its limit. One small allocation per item buys a rule
/// that holds for every reference.
/// </remarks>
public sealed class AdmissionLease : IDisposable
{
    private LimitedAdmissionGate? _gate; // Interlocked: the first Dispose takes it and releases; later ones find null

    internal AdmissionLease(LimitedAdmissionGate gate) => _gate = gate;

    /// <summary>Releases the item's place in the gate; does nothing after the first call.</summary>
    public void Dispose() => Interlocked.Exchange(ref _gate, null)?.Release();
}
