using System.Text.Json;

namespace Concurrency.Benchmarks.Reporting;

/// <summary>The machine a result file was produced on, from its HostEnvironmentInfo.</summary>
public sealed record MachineInfo(string Processor, int LogicalCores, string Os, string Runtime, string BenchmarkDotNet, DateTime Date)
{
    public static MachineInfo Read(JsonElement root, DateTime date)
    {
        var host = root.GetProperty("HostEnvironmentInfo");
        string Text(string name) => host.TryGetProperty(name, out var value) ? value.ToString() : "?";
        var cores = host.TryGetProperty("LogicalCoreCount", out var count) && count.ValueKind == JsonValueKind.Number ? count.GetInt32() : 0;
        return new MachineInfo(Text("ProcessorName"), cores, Text("OsVersion"), Text("RuntimeVersion"), Text("BenchmarkDotNetVersion"), date);
    }

    public override string ToString()
        => $"{Processor}, {LogicalCores} logical cores, {Os}, {Runtime}, BenchmarkDotNet {BenchmarkDotNet}, {Date:yyyy-MM-dd HH:mm} UTC";
}
