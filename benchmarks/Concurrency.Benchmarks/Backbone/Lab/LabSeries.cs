
namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>One line of a <see cref="LabChart"/>: points (x, y) in order of x.</summary>
public sealed record LabSeries(string Label, IReadOnlyList<double> X, IReadOnlyList<double> Y);
