using System.Diagnostics.Tracing;
using BenchmarkDotNet.Engines;

namespace Concurrency.Benchmarks.Backbone.Cpu;

/// <summary>
/// Inside a benchmark process: listens to BenchmarkDotNet's engine events and adds up the process CPU time
/// (<see cref="Environment.CpuUsage"/>, every thread) and the messages of each measured workload iteration, so jitting,
/// pilot, warm-up and overhead iterations are left out. The engine raises the events outside its clock, so reading the CPU
/// time costs the measurement nothing. On dispose it writes one <see cref="CpuSample"/> for the host.
/// </summary>
/// <remarks>
/// Concurrency rule: EventListener delivers these events synchronously on the thread that raised them, the engine's, which
/// also runs the global cleanup that disposes this listener; so the running totals have one thread and need no lock.
/// </remarks>
public sealed class WorkloadCpuListener : EventListener
{
    private readonly string _directory;
    private readonly string _case;
    private readonly DateTime _startedUtc = DateTime.UtcNow;
    private TimeSpan _iterationStart; // engine thread only
    private TimeSpan _cpu;            // engine thread only
    private long _messages;           // engine thread only
    private int _iterations;          // engine thread only

    private WorkloadCpuListener(string directory, string benchmarkCase)
    {
        _directory = directory;
        _case = benchmarkCase;
    }

    /// <summary>Starts listening when the host asked for CPU samples (a BenchmarkDotNet run); otherwise (tests) null.</summary>
    public static WorkloadCpuListener? StartIfRequested(string benchmarkCase)
        => Environment.GetEnvironmentVariable(CpuSampleStore.DirectoryVariable) is { Length: > 0 } directory
            ? new WorkloadCpuListener(directory, benchmarkCase)
            : null;

    public override void Dispose()
    {
        base.Dispose();
        if (_iterations > 0)
        {
            var job = Environment.GetEnvironmentVariable(CpuSampleStore.JobVariable) ?? "?";
            CpuSampleStore.Write(
                _directory,
                new CpuSample(_case, job, 0, Environment.ProcessId, _startedUtc, _iterations, _messages, _cpu.TotalNanoseconds));
        }
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        // Called from the base constructor too, before this class's fields are set: use nothing but the argument.
        if (eventSource.Name == "BenchmarkDotNet.EngineEventSource")
        {
            EnableEvents(eventSource, EventLevel.Informational);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        switch (eventData.EventId)
        {
            case EngineEventSource.WorkloadActualStartEventId:
                _iterationStart = Environment.CpuUsage.TotalTime;
                break;
            case EngineEventSource.WorkloadActualStopEventId:
                _cpu += Environment.CpuUsage.TotalTime - _iterationStart;
                _messages += eventData.Payload is [long operations, ..] ? operations : 0;
                _iterations++;
                break;
        }
    }
}
