using System.Collections.Concurrent;
using System.Diagnostics.Metrics;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// Listens to the library's meter as a user's <see cref="MeterListener"/> would, keeping every measurement with its tags
/// (counters, histograms, and the observable instruments when <see cref="Observe"/> collects them), so that a test can
/// pick out its own server's by the tag that names it: other tests' servers measure on instruments of the same name.
/// </summary>
internal sealed class MeasurementRecorder : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly ConcurrentQueue<Measured> _measured = new();
    private readonly ConcurrentDictionary<Instrument, bool> _completed = new();
    private readonly Lock _observing = new();
    private List<Measured>? _observed; // guarded by _observing: filled while RecordObservableInstruments runs

    public MeasurementRecorder()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == "Concurrency.Messaging")
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.MeasurementsCompleted = (instrument, _) => _completed[instrument] = true;
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.Start();
    }

    /// <summary>Gets the counters' and histograms' measurements so far.</summary>
    public IEnumerable<Measured> Measurements => _measured;

    /// <summary>Gets the instruments whose meter was disposed while this recorder listened.</summary>
    public ICollection<Instrument> Completed => _completed.Keys;

    /// <summary>Gets the measurements of <paramref name="name"/> whose tag <paramref name="tag"/> is <paramref name="value"/>.</summary>
    public IEnumerable<Measured> Of(string name, string tag, object value)
        => _measured.Where(measured => measured.Instrument.Name == name && Equals(measured.Tag(tag), value));

    /// <summary>Gets what counter <paramref name="name"/> was given with tag <paramref name="tag"/> = <paramref name="value"/>.</summary>
    public double Total(string name, string tag, object value) => Of(name, tag, value).Sum(measured => measured.Value);

    /// <summary>Collects the observable instruments now and returns their measurements.</summary>
    public IReadOnlyList<Measured> Observe()
    {
        lock (_observing)
        {
            _observed = [];
            _listener.RecordObservableInstruments();
            var observed = _observed;
            _observed = null;
            return observed;
        }
    }

    public void Dispose() => _listener.Dispose();

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var measured = new Measured(instrument, value, tags.ToArray());
        if (instrument.IsObservable)
        {
            // Only RecordObservableInstruments reports observable measurements, under _observing, on this thread.
            _observed!.Add(measured);
            return;
        }

        _measured.Enqueue(measured);
    }

    /// <summary>One measurement: its instrument, its value and its tags.</summary>
    internal sealed record Measured(Instrument Instrument, double Value, KeyValuePair<string, object?>[] Tags)
    {
        public object? Tag(string key) => Tags.FirstOrDefault(tag => tag.Key == key).Value;
    }
}
