using System.Text.Json;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// A results directory in the shape a run leaves, written from a few made-up measurements, so that the commands that read
/// results (report, compare, decide) can be tested without running a benchmark: BenchmarkDotNet's full JSON with our
/// provenance side file (<see cref="AddHeadline"/>), or our own result sets (<see cref="Set"/>, <see cref="WriteSet"/>).
/// Deleted on dispose.
/// </summary>
public sealed class ResultsFixture : IDisposable
{
    /// <summary>The day every made-up run finished, unless a test says otherwise.</summary>
    public static readonly DateTime Day = new(2026, 11, 26, 12, 0, 0, DateTimeKind.Utc);

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
            FullName = $"Concurrency.Benchmarks.HandOff.HeadlineBenchmarks.OneToOne(Path: {r.Key})",
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

    /// <summary>
    /// A result set of <paramref name="command"/> holding <paramref name="measurements"/>, from a run of a 40-digit
    /// <paramref name="commit"/> (all 'a' if null) that finished at <paramref name="finished"/> (<see cref="Day"/> if null).
    /// </summary>
    public static ResultSet Set(string command, IReadOnlyList<Measurement> measurements, string? commit = null, DateTime? finished = null)
    {
        var day = finished ?? Day;
        return new ResultSet(command, new RunProvenance(commit ?? Commit('a'), false, ".NET 10", "Linux", "cpu", 2, day, day, command), measurements);
    }

    /// <summary>Writes <paramref name="set"/> beside a table <c>LOOP-2.md</c> in <paramref name="folder"/> of <see cref="Results"/>; returns the folder.</summary>
    public string WriteSet(string folder, ResultSet set)
    {
        var directory = Directory.CreateDirectory(Path.Combine(Results, folder)).FullName;
        set.WriteBeside(Path.Combine(directory, "LOOP-2.md"));
        return directory;
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
