using System.Text.Json;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>One BenchmarkDotNet results file and its side files (provenance, CPU samples), as the report merges them.</summary>
public sealed record ResultSource(string FileName, RunProvenance? Provenance, MachineInfo Machine, DateTime WrittenUtc, IReadOnlyList<BenchmarkResult> Results)
{
    /// <summary>
    /// Gets the code the results were measured with: the commit, or a marker when the run recorded none. A tree with
    /// uncommitted changes is only known to be the same within one run, so such a source also names its run.
    /// </summary>
    public string Commit => Provenance switch
    {
        null => "unrecorded",
        { Dirty: true } p => $"{p.Commit} with uncommitted changes, run of {p.StartedUtc:yyyy-MM-dd HH:mm:ss} UTC",
        var p => p.Commit,
    };

    /// <summary>Gets the commit as the report shows it.</summary>
    public string CommitLabel => Provenance?.CommitLabel ?? "unrecorded (no provenance side file)";

    public static ResultSource Load(string fullJsonPath)
    {
        using var json = JsonDocument.Parse(File.ReadAllText(fullJsonPath));
        var provenance = RunProvenance.Read(ResultFiles.SideFile(fullJsonPath, ResultFiles.ProvenanceSuffix));
        var cpu = CpuSampleStore.ReadSideFile(ResultFiles.SideFile(fullJsonPath, ResultFiles.CpuSuffix));
        var written = provenance?.FinishedUtc ?? File.GetLastWriteTimeUtc(fullJsonPath);
        return new ResultSource(
            Path.GetFileName(fullJsonPath),
            provenance,
            MachineInfo.Read(json.RootElement, provenance, written),
            written,
            [.. BenchmarkResult.Read(json.RootElement, cpu)]);
    }
}
