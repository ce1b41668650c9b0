using System.Text.Json;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>The machine a result file was produced on: from the run's provenance, else from BenchmarkDotNet's host information.</summary>
public sealed record MachineInfo(string Processor, int LogicalCores, string Os, string Runtime, string BenchmarkDotNet, DateTime Date)
{
    public static MachineInfo Read(JsonElement root, RunProvenance? provenance, DateTime date)
    {
        var host = root.GetProperty("HostEnvironmentInfo");
        string Text(string name) => host.TryGetProperty(name, out var value) ? value.ToString() : "?";
        var cores = host.TryGetProperty("LogicalCoreCount", out var count) && count.ValueKind == JsonValueKind.Number ? count.GetInt32() : 0;
        return provenance is null
            ? new MachineInfo(Text("ProcessorName"), cores, Text("OsVersion"), Text("RuntimeVersion"), Text("BenchmarkDotNetVersion"), date)
            : new MachineInfo(provenance.Cpu, provenance.LogicalCores, provenance.Os, provenance.Runtime, Text("BenchmarkDotNetVersion"), date);
    }

    public override string ToString()
        => $"{Processor}, {LogicalCores} logical cores, {Os}, {Runtime}, BenchmarkDotNet {BenchmarkDotNet}, {Date:yyyy-MM-dd HH:mm} UTC";

    /// <summary>Gets the machine without the date, to tell whether two sources ran on the same one.</summary>
    public string Identity => $"{Processor}, {LogicalCores} logical cores, {Os}, {Runtime}";
}
