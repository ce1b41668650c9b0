using System.Globalization;
using System.Reflection;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Running;

namespace Concurrency.Benchmarks.Backbone.Cpu;

/// <summary>
/// One name for a benchmark case that the benchmark process (which knows only its own instance) and the host (which knows
/// BenchmarkDotNet's case) both compute: "Type.Method(Name=Value, …)", parameters sorted by name, values invariant.
/// </summary>
public static class CaseKey
{
    /// <summary>
    /// In the benchmark process: the benchmark method, the type that declares it (BenchmarkDotNet runs an instance of a
    /// generated subclass), and the instance's parameter properties.
    /// </summary>
    public static string Of(object benchmark)
    {
        var type = benchmark.GetType();
        var method = type.GetMethods().Single(m => m.GetCustomAttribute<BenchmarkAttribute>() is not null);
        var parameters = type.GetProperties()
            .Where(p => p.GetCustomAttribute<ParamsAttribute>() is not null
                || p.GetCustomAttribute<ParamsAllValuesAttribute>() is not null
                || p.GetCustomAttribute<ParamsSourceAttribute>() is not null)
            .Select(p => (p.Name, p.GetValue(benchmark)));
        return Format(method.DeclaringType!.Name, method.Name, parameters);
    }

    /// <summary>In the host: the same key from BenchmarkDotNet's description of the case.</summary>
    public static string Of(BenchmarkCase benchmarkCase)
        => Format(
            benchmarkCase.Descriptor.Type.Name,
            benchmarkCase.Descriptor.WorkloadMethod.Name,
            benchmarkCase.Parameters.Items.Select(p => (p.Name, (object?)p.Value)));

    private static string Format(string type, string method, IEnumerable<(string Name, object? Value)> parameters)
    {
        var list = parameters
            .OrderBy(p => p.Name, StringComparer.Ordinal)
            .Select(p => $"{p.Name}={Convert.ToString(p.Value, CultureInfo.InvariantCulture)}");
        return $"{type}.{method}({string.Join(", ", list)})";
    }
}
