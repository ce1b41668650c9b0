using System.Collections.Concurrent;
using System.Diagnostics.Metrics;

namespace Concurrency.Messaging.Tests;

/// <summary>
/// Listens to the library's meter the way a user's <see cref="MeterListener"/> would: sums what each counter was given,
/// by instrument and by instrument and tag value, and reads the observable instruments on demand. The instruments are
/// process-wide: a test that reads them runs alone (<c>LibraryInstruments</c>) and reads an observable
/// instrument before and after what it does.
/// </summary>
internal sealed class MeterRecorder : IDisposable
{
    public const string MeterName = "Concurrency.Messaging";

    private readonly MeterListener _listener = new();
    private readonly ConcurrentDictionary<string, Instrument> _instruments = new();
    private readonly ConcurrentDictionary<string, long> _totals = new();
    private readonly Lock _observing = new();
    private Dictionary<string, long>? _observed; // guarded by _observing: filled while RecordObservableInstruments runs

    public MeterRecorder()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == MeterName)
            {
                _instruments[instrument.Name] = instrument;
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.Start();
    }

    /// <summary>Gets the instruments of the meter published so far, by name.</summary>
    public IReadOnlyDictionary<string, Instrument> Instruments => _instruments;

    /// <summary>Gets what counter <paramref name="name"/> was given since this recorder started.</summary>
    public long Total(string name) => _totals.GetValueOrDefault(name);

    /// <summary>Gets what counter <paramref name="name"/> was given with tag <paramref name="tag"/> = <paramref name="value"/>.</summary>
    public long Total(string name, string tag, string value) => _totals.GetValueOrDefault($"{name}|{tag}={value}");

    /// <summary>Reads the observable instrument <paramref name="name"/> now (the sum of what its callback reports).</summary>
    public long Observe(string name)
    {
        lock (_observing)
        {
            _observed = [];
            _listener.RecordObservableInstruments();
            var observed = _observed.GetValueOrDefault(name);
            _observed = null;
            return observed;
        }
    }

    public void Dispose() => _listener.Dispose();

    private void Record(Instrument instrument, long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (instrument.IsObservable)
        {
            // Only RecordObservableInstruments reports observable measurements, under _observing, on this thread.
            var observed = _observed!;
            observed[instrument.Name] = observed.GetValueOrDefault(instrument.Name) + value;
            return;
        }

        _totals.AddOrUpdate(instrument.Name, value, (_, sum) => sum + value);
        foreach (var (key, tagValue) in tags)
        {
            _totals.AddOrUpdate($"{instrument.Name}|{key}={tagValue}", value, (_, sum) => sum + value);
        }
    }
}
