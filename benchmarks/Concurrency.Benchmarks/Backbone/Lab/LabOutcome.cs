namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// What an experiment produced: tables (rows of formatted cells), charts (numeric series), and the figures the decision
/// table and <c>compare</c> read (machine-readable, written as JSON beside the experiment's section).
/// </summary>
public sealed record LabOutcome(IReadOnlyList<LabTable> Tables, IReadOnlyList<LabChart> Charts, IReadOnlyList<LabFigure>? Figures = null);

/// <summary>
/// One contender's figure in one experiment: its values (each run's within one launch; each launch's median once the
/// launches are merged).
/// </summary>
public sealed record LabFigure(string Contender, ContenderFamily Family, string Conditions, string Metric, IReadOnlyList<double> Values);
