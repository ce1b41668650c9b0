using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;
using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.Backbone.Runs;

/// <summary>
/// One figure of one contender, as every measuring command writes it beside its table: which scenario and contender, under
/// which conditions (message shape, handler, topology, load), in which phase and on how many cores, the metric with its
/// median and interval, and the values it was folded from (each launch's median, or each run's where there was one launch).
/// </summary>
/// <param name="Scenario">The scenario: a BenchmarkDotNet class (HeadlineBenchmarks), or a command's table ("loop", "idle").</param>
/// <param name="Contender">The contender's stable name, as its game's registry names it.</param>
/// <param name="Family">Whose it is.</param>
/// <param name="Conditions">The other parameters ("Subscribers=2"), or empty.</param>
/// <param name="Phase">Cold or steady.</param>
/// <param name="Cores">The cores the process could use.</param>
/// <param name="Metric">What was measured, with its unit: one of the <c>Measurement.*</c> metric names.</param>
/// <param name="Median">The figure.</param>
/// <param name="Low">The interval's low end (the lowest launch, or the bootstrap interval's low end).</param>
/// <param name="High">The interval's high end.</param>
public sealed record Measurement(
    string Scenario,
    string Contender,
    ContenderFamily Family,
    string Conditions,
    Phase Phase,
    int Cores,
    string Metric,
    double Median,
    double Low,
    double High)
{
    public const string MessagesPerSecond = "msg/s";
    public const string IdentitiesPerSecond = "identities/s";
    public const string CpuNanosecondsPerMessage = "CPU ns/msg";
    public const string ServerCpuNanosecondsPerMessage = "server CPU ns/msg";
    public const string BytesPerMessage = "allocated B/msg";
    public const string IdleCorePercent = "% of one core, 100 idle instances";
    public const string BytesPerIdleActor = "bytes per idle actor";

    /// <summary>Gets the values the figure was folded from.</summary>
    public IReadOnlyList<double> Samples { get; init; } = [];

    /// <summary>Gets what makes two measurements the same figure (a later one replaces an earlier): all but the values.</summary>
    [JsonIgnore]
    public (string Scenario, string Contender, string Conditions, Phase Phase, int Cores, string Metric) Key
        => (Scenario, Contender, Conditions, Phase, Cores, Metric);

    /// <summary>Gets whether a larger figure is better (a rate), or a smaller (a cost).</summary>
    [JsonIgnore]
    public bool HigherIsBetter => Metric is MessagesPerSecond or IdentitiesPerSecond;

    /// <summary>A measurement from values (launches' medians, or runs): their median, lowest and highest.</summary>
    public static Measurement Of(string scenario, string contender, ContenderFamily family, string conditions, Phase phase, int cores, string metric, IReadOnlyList<double> values)
    {
        ArgumentNullException.ThrowIfNull(values);
        if (values.Count == 0)
        {
            throw new ArgumentException("A measurement needs at least one value.", nameof(values));
        }

        return new Measurement(scenario, contender, family, conditions, phase, cores, metric, Bootstrap.MedianOf([.. values]), values.Min(), values.Max()) { Samples = values };
    }

    public override string ToString()
        => string.Create(CultureInfo.InvariantCulture, $"{Scenario} {Contender} ({Conditions}) {Phase} {Cores} cores: {Median:G4} {Metric} [{Low:G4}–{High:G4}]");
}

/// <summary>
/// A command's results in machine-readable form, written as <c>NAME.json</c> beside its <c>NAME.md</c>: the provenance
/// (commit, runtime, machine, command) and every measurement. The decision table and <c>compare</c> read these, and refuse
/// a file without its provenance.
/// </summary>
public sealed record ResultSet(string Command, RunProvenance Provenance, IReadOnlyList<Measurement> Measurements)
{
    private static readonly JsonSerializerOptions Options = new()
    {
        WriteIndented = true,
        Converters = { new JsonStringEnumConverter() },
    };

    /// <summary>Writes the set beside a table: <paramref name="tablePath"/> with its extension changed to .json.</summary>
    /// <returns>The path written.</returns>
    public string WriteBeside(string tablePath)
    {
        var path = Path.ChangeExtension(tablePath, ".json");
        File.WriteAllText(path, JsonSerializer.Serialize(this, Options));
        return path;
    }

    /// <summary>Reads a result set.</summary>
    /// <exception cref="InvalidDataException">The file is not a result set, or carries no provenance or no measurement.</exception>
    public static ResultSet Read(string path)
    {
        ResultSet? set;
        try
        {
            set = JsonSerializer.Deserialize<ResultSet>(File.ReadAllText(path), Options);
        }
        catch (JsonException ex)
        {
            throw new InvalidDataException($"{path} is not a result set: {ex.Message}", ex);
        }

        if (set?.Provenance is null || set.Measurements is null || string.IsNullOrEmpty(set.Command))
        {
            throw new InvalidDataException($"{path} carries no command, provenance or measurements: results written before they were recorded cannot be compared; re-run the command that made them.");
        }

        return set;
    }

    /// <summary>
    /// The newest measurement of each figure (<see cref="Measurement.Key"/>) over several result sets, by when its set
    /// finished, with the tag its set came with (a file name, say).
    /// </summary>
    public static IEnumerable<(Measurement Measurement, TTag Tag)> Newest<TTag>(IEnumerable<(TTag Tag, ResultSet Set)> sets)
        => sets
            .SelectMany(s => s.Set.Measurements.Select(m => (Measurement: m, s.Tag, s.Set.Provenance.FinishedUtc)))
            .GroupBy(x => x.Measurement.Key)
            .Select(g => g.OrderByDescending(x => x.FinishedUtc).First())
            .Select(x => (x.Measurement, x.Tag));

    /// <summary>Every result set under <paramref name="directory"/> (recursively), skipping JSON files that are not result sets.</summary>
    public static IEnumerable<(string Path, ResultSet Set)> FindAll(string directory)
    {
        if (!Directory.Exists(directory))
        {
            yield break;
        }

        foreach (var path in Directory.EnumerateFiles(directory, "*.json", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
        {
            if (path.EndsWith(ResultFiles.ProvenanceSuffix, StringComparison.Ordinal) || path.EndsWith(ResultFiles.CpuSuffix, StringComparison.Ordinal) || path.EndsWith(ResultFiles.FullJsonSuffix, StringComparison.Ordinal))
            {
                continue;
            }

            ResultSet set;
            try
            {
                set = Read(path);
            }
            catch (InvalidDataException)
            {
                continue;
            }

            yield return (path, set);
        }
    }
}
