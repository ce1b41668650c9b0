namespace Concurrency.Messaging.Tests.Admission;

/// <summary>The gates' counters on the library's meter, read as a user would with a <see cref="System.Diagnostics.Metrics.MeterListener"/>.</summary>
[Collection(nameof(LibraryInstruments))]
public sealed class AdmissionInstrumentsTests
{
    [Fact]
    public void Meter_AdmitsAndRejects_CountersAndOutstandingShowThem()
    {
        using var recorder = new MeterRecorder();
        var outstanding = recorder.Observe("concurrency.admission.outstanding");
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = 2 });

        Assert.True(gate.TryEnter(out var first));
        Assert.True(gate.TryEnter(out var second));
        Assert.False(gate.TryEnter(out _));

        // Alone in the process (LibraryInstruments): what this gate did, no more.
        Assert.Equal(2, recorder.Total("concurrency.admission.admitted"));
        Assert.Equal(1, recorder.Total("concurrency.admission.rejected"));
        Assert.Equal(2, recorder.Observe("concurrency.admission.outstanding") - outstanding);
        Assert.Contains("concurrency.admission.throttled", recorder.Instruments.Keys);
        first!.Dispose();
        second!.Dispose();
    }
}
