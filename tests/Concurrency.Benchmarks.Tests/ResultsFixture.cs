using System.Text.Json;
using Concurrency.Benchmarks.Runs;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// A results directory in the shape a run leaves (BenchmarkDotNet's full JSON, our provenance side file), written from a few
/// made-up measurements, so the report can be tested without running a benchmark. Deleted on dispose.
/// </summary>
public sealed class ResultsFixture : IDisposable
{
    private readonly DirectoryInfo _root = Directory.CreateTempSubdirectory("concurrency-report-");

    public ResultsFixture()
    {
        Results = Directory.CreateDirectory(Path.Combine(_root.FullName, "results")).FullName;
        Output = Path.Combine(_root.FullName, "out");
    }

    public string Results { get; }

    public string Output { get; }

    /// <summary>
    /// Writes one headline results file whose cases run at <paramref name="rates"/> msg/s, measured at <paramref name="commit"/>
    /// (with uncommitted changes if <paramref name="dirty"/>) by a run that started at <paramref name="runStart"/> minutes.
    /// </summary>
    public void AddHeadline(
        string fileName, string commit, IReadOnlyDictionary<string, double> rates, double iterationMilliseconds = 250, bool dirty = false, int runStart = 0)
    {
        var benchmarks = rates.Select(r => new
        {
            DisplayInfo = $"HeadlineBenchmarks.OneToOne: 2 cores(Affinity=11) [Path={r.Key}]",
            Type = "HeadlineBenchmarks",
            Method = "OneToOne",
            FullName = $"Concurrency.Benchmarks.Scenarios.HeadlineBenchmarks.OneToOne(Path: {r.Key})",
            Measurements = Measurements(r.Value, iterationMilliseconds),
        });
        var json = new
        {
            Title = fileName,
            HostEnvironmentInfo = new { ProcessorName = "Test CPU", LogicalCoreCount = 2, OsVersion = "Test OS", RuntimeVersion = ".NET test", BenchmarkDotNetVersion = "0.15.8" },
            Benchmarks = benchmarks,
        };
        var path = Path.Combine(Results, fileName + ResultFiles.FullJsonSuffix);
        File.WriteAllText(path, JsonSerializer.Serialize(json));
        var date = new DateTime(2026, 1, 2, 3, 4, 5, DateTimeKind.Utc).AddMinutes(runStart);
        new RunProvenance(commit, dirty, ".NET test", "Test OS", "Test CPU", 2, date, date, string.Empty)
            .Write(ResultFiles.SideFile(path, ResultFiles.ProvenanceSuffix));
    }

    public void Dispose() => _root.Delete(recursive: true);

    /// <summary>Two launches of five iterations of about <paramref name="milliseconds"/>, within 1% of <paramref name="rate"/>.</summary>
    private static object[] Measurements(double rate, double milliseconds)
        => [.. Enumerable.Range(1, 2).SelectMany(launch => Enumerable.Range(1, 5).Select(i => new
        {
            IterationMode = "Workload",
            IterationStage = "Actual",
            LaunchIndex = launch,
            IterationIndex = i,
            Operations = (long)(rate * milliseconds / 1000),
            Nanoseconds = milliseconds * 1e6 / (1 + (((launch * 5) + i) % 3 / 100.0)),
        }))];

    public static string Commit(char digit) => new(digit, 40);
}
