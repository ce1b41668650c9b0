using Concurrency.Messaging.Admission;
using Xunit;

namespace Concurrency.Messaging.Tests.Admission;

/// <summary>The gates' counters on the library's meter, read as a user would with a <see cref="System.Diagnostics.Metrics.MeterListener"/>.</summary>
public sealed class AdmissionInstrumentsTests
{
    [Fact]
    public void Meter_AdmitsAndRejects_CountersAndOutstandingShowThem()
    {
        using var recorder = new MeterRecorder();
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = 2 });

        Assert.True(gate.TryEnter(out var first));
        Assert.True(gate.TryEnter(out var second));
        Assert.False(gate.TryEnter(out _));

        // Other tests' gates run beside this one: at least what this gate did.
        Assert.True(recorder.Total("concurrency.admission.admitted") >= 2);
        Assert.True(recorder.Total("concurrency.admission.rejected") >= 1);
        Assert.True(recorder.Observe("concurrency.admission.outstanding") >= 2);
        Assert.Contains("concurrency.admission.throttled", recorder.Instruments.Keys);
        first!.Dispose();
        second!.Dispose();
    }
}
