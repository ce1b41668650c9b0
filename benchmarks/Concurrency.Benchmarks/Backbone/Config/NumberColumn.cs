using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Concurrency.Benchmarks.Backbone.Config;

/// <summary>
/// A number this program adds to BenchmarkDotNet's tables beside its own columns: always shown, in the custom category,
/// ordered by <paramref name="priority"/>, "-" where a case has no value. A column supplies its names and its value.
/// </summary>
public abstract class NumberColumn(string id, string columnName, int priority, string legend) : IColumn
{
    public string Id => id;

    public string ColumnName => columnName;

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => priority;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => legend;

    public abstract string GetValue(Summary summary, BenchmarkCase benchmarkCase);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) => GetValue(summary, benchmarkCase);

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public bool IsAvailable(Summary summary) => true;
}
