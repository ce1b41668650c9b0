
namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// A table of formatted cells. Tables with the same title from runs at several core counts are merged into one, with a
/// "cores" column added in front. Right-aligned columns are those whose name is in <see cref="NumericColumns"/>.
/// </summary>
public sealed record LabTable(string Title, IReadOnlyList<string> Columns, IReadOnlyList<IReadOnlyList<string>> Rows, IReadOnlyList<string>? NumericColumns = null, string? Note = null);
