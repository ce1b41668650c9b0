using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Admission;

/// <summary>
/// The admission gate: lock-free counters. Admission is a compare-exchange loop that raises the outstanding count only
/// from a value below the limit, so no thread ever sees it past the limit; a lease's release lowers it once.
/// </summary>
/// <remarks>
/// The throttle reads the outstanding count once, before its delay, and holds no place while it waits: the seed delayed
/// the start of a transaction, not a running one. After the delay the entry takes the same compare-exchange path as any
/// other, so the limit still rejects.
/// </remarks>
internal sealed class LimitedAdmissionGate : IAdmissionGate
{
    private readonly AdmissionPolicy _policy;
    private readonly int _threshold;
    private readonly TimeSpan _delay;
    private readonly TimeProvider _time;
    private int _outstanding;    // Interlocked: raised only by the compare-exchange in TryAdmit, lowered only by Release
    private int _maxOutstanding; // Interlocked: raised by compare-exchange to the highest _outstanding an admission produced
    private EventCount _admitted = new(AdmissionInstruments.Admitted);
    private EventCount _rejected = new(AdmissionInstruments.Rejected);
    private EventCount _throttled = new(AdmissionInstruments.Throttled);

    public LimitedAdmissionGate(AdmissionOptions options)
    {
        Limit = options.Limit;
        _policy = options.Policy;
        _threshold = options.ThrottleThreshold;
        _delay = options.ThrottleDelay;
        _time = options.TimeProvider;
        AdmissionInstruments.Live.Add(this);
    }

    public int Limit { get; }

    public AdmissionMetrics Metrics => new(
        Volatile.Read(ref _outstanding),
        Volatile.Read(ref _maxOutstanding),
        _admitted.Read(),
        _rejected.Read(),
        _throttled.Read());

    public bool TryEnter([NotNullWhen(true)] out AdmissionLease? lease)
    {
        lease = TryAdmit(out _) ? new AdmissionLease(this) : null;
        return lease is not null;
    }

    public ValueTask<AdmissionLease> EnterAsync(CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<AdmissionLease>(cancellationToken);
        }

        if (_policy == AdmissionPolicy.Throttle && Volatile.Read(ref _outstanding) >= _threshold)
        {
            return ThrottledAsync(cancellationToken);
        }

        return Admit();
    }

    /// <summary>Called once per lease, by its first Dispose.</summary>
    internal void Release()
    {
        var after = Interlocked.Decrement(ref _outstanding);
        Debug.Assert(after >= 0, "A lease was released more often than admitted.");
    }

    private async ValueTask<AdmissionLease> ThrottledAsync(CancellationToken cancellationToken)
    {
        _throttled.Add();
        await Task.Delay(_delay, _time, cancellationToken).ConfigureAwait(false);
        return await Admit().ConfigureAwait(false);
    }

    private ValueTask<AdmissionLease> Admit()
        => TryAdmit(out var seen)
            ? new ValueTask<AdmissionLease>(new AdmissionLease(this))
            : ValueTask.FromException<AdmissionLease>(new AdmissionRejectedException(Limit, seen));

    /// <summary>Raises the outstanding count by one unless it is at the limit; <paramref name="seen"/> is the count it found.</summary>
    private bool TryAdmit(out int seen)
    {
        seen = Volatile.Read(ref _outstanding);
        while (seen < Limit)
        {
            var before = Interlocked.CompareExchange(ref _outstanding, seen + 1, seen);
            if (before == seen)
            {
                _admitted.Add();
                RaiseMax(seen + 1);
                return true;
            }

            seen = before;
        }

        _rejected.Add();
        return false;
    }

    private void RaiseMax(int value)
    {
        var max = Volatile.Read(ref _maxOutstanding);
        while (value > max)
        {
            var before = Interlocked.CompareExchange(ref _maxOutstanding, value, max);
            if (before == max)
            {
                return;
            }

            max = before;
        }
    }
}
