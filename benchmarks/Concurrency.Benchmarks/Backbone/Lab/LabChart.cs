
namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// A line chart: one line per series. <see cref="Name"/> becomes the PNG's file name (the core count is appended when the
/// experiment runs per core count).
/// </summary>
public sealed record LabChart(string Name, string Title, string XLabel, string YLabel, IReadOnlyList<LabSeries> Series, bool LogX = false, bool LogY = false);
