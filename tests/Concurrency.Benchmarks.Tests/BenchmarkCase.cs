using System.Globalization;
using System.Reflection;
using BenchmarkDotNet.Attributes;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// One benchmark method with one combination of its parameters, discovered from BenchmarkDotNet's own attributes, and run
/// the way BenchmarkDotNet runs a case: global setup, the method for several invocations on the same path, global cleanup.
/// </summary>
public sealed record BenchmarkCase(Type Type, MethodInfo Method, IReadOnlyList<(PropertyInfo Property, object? Value)> Parameters)
{
    public const int SmallMessageCount = 2_000;

    /// <summary>Invocations per run: more than one, so the steady-state path and the order check's wrap between blocks are exercised.</summary>
    public const int Invocations = 3;

    public static IEnumerable<BenchmarkCase> All() =>
        typeof(Program).Assembly.GetTypes()
            .Where(t => t is { IsPublic: true, IsAbstract: false } && t.GetMethods().Any(IsBenchmark))
            .SelectMany(t => t.GetMethods().Where(IsBenchmark).SelectMany(m => Combinations(t).Select(p => new BenchmarkCase(t, m, p))));

    public override string ToString()
        => $"{Type.Name}.{Method.Name}({string.Join(", ", Parameters.Select(p => string.Create(CultureInfo.InvariantCulture, $"{p.Property.Name}={p.Value}")))})";

    /// <summary>
    /// Runs the case (<see cref="RunAsync{T}"/>) and checks what it says it verified: each of the <see cref="Invocations"/>
    /// passed its check, and the global cleanup checked them all.
    /// </summary>
    public async Task AssertVerifiedAsync()
    {
        var verified = await RunAsync<Backbone.Harness.IVerifiedBenchmark>();

        Assert.Equal(Invocations, verified.VerifiedRuns);
        Assert.True(verified.VerifiedCompletion);
    }

    /// <summary>
    /// Runs the case (<see cref="Run"/>) on a pool thread within a minute, and returns the benchmark instance, checked to
    /// be a <typeparamref name="T"/>, so that the test can ask it what it verified.
    /// </summary>
    public async Task<T> RunAsync<T>()
    {
        var ct = TestContext.Current.CancellationToken;
        var instance = await Task.Run(Run, ct).WaitAsync(TimeSpan.FromMinutes(1), ct);
        return Assert.IsAssignableFrom<T>(instance);
    }

    /// <summary>
    /// Runs the case for <see cref="Invocations"/> blocks of <see cref="SmallMessageCount"/> messages; the benchmark's own
    /// verification throws on a mismatch, and its global cleanup on a bad completion.
    /// </summary>
    /// <returns>The benchmark instance, so the caller can ask it what it verified.</returns>
    public object Run()
    {
        var instance = Activator.CreateInstance(Type)!;
        Type.GetProperty("MessageCount")?.SetValue(instance, SmallMessageCount);
        foreach (var (property, value) in Parameters)
        {
            property.SetValue(instance, value);
        }

        Invoke<GlobalSetupAttribute>(instance);
        try
        {
            for (var i = 0; i < Invocations; i++)
            {
                Method.Invoke(instance, BindingFlags.DoNotWrapExceptions, null, null, null); // the benchmark's own exception, not a wrapper
            }
        }
        finally
        {
            Invoke<GlobalCleanupAttribute>(instance);
        }

        return instance;
    }

    private static bool IsBenchmark(MethodInfo method) => method.GetCustomAttribute<BenchmarkAttribute>() is not null;

    private void Invoke<TAttribute>(object instance)
        where TAttribute : Attribute
    {
        foreach (var method in Type.GetMethods().Where(m => m.GetCustomAttribute<TAttribute>() is not null))
        {
            method.Invoke(instance, BindingFlags.DoNotWrapExceptions, null, null, null);
        }
    }

    private static IEnumerable<IReadOnlyList<(PropertyInfo, object?)>> Combinations(Type type)
    {
        IEnumerable<IReadOnlyList<(PropertyInfo, object?)>> combinations = [[]];
        foreach (var property in type.GetProperties())
        {
            var values = ValuesOf(type, property);
            if (values is not null)
            {
                combinations = combinations.SelectMany(c => values.Select(v => (IReadOnlyList<(PropertyInfo, object?)>)[.. c, (property, v)])).ToList();
            }
        }

        return combinations;
    }

    private static object?[]? ValuesOf(Type type, PropertyInfo property)
    {
        if (property.GetCustomAttribute<ParamsAttribute>() is { } @params)
        {
            return @params.Values;
        }

        if (property.GetCustomAttribute<ParamsAllValuesAttribute>() is not null)
        {
            return [.. Enum.GetValues(property.PropertyType).Cast<object?>()];
        }

        if (property.GetCustomAttribute<ParamsSourceAttribute>() is { } source)
        {
            var member = type.GetMethod(source.Name, BindingFlags.Public | BindingFlags.Static | BindingFlags.FlattenHierarchy)
                ?? throw new InvalidOperationException($"{type.Name}: ParamsSource '{source.Name}' must be a public static method.");
            return [.. ((System.Collections.IEnumerable)member.Invoke(null, null)!).Cast<object?>()];
        }

        return null;
    }
}
