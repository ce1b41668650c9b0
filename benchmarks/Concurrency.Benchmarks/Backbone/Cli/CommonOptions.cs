using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;

namespace Concurrency.Benchmarks.Backbone.Cli;

/// <summary>
/// The options several commands share, made once here so each reads and fails the same way everywhere: a bad value is
/// one parse error naming the option, the rule and the value given ("--launches needs a whole number from 1 to 20, not '0'").
/// </summary>
public static class CommonOptions
{
    /// <summary>The most cores an affinity mask of the lab's pinning (and BenchmarkDotNet's) can hold.</summary>
    public const int MostCores = 62;

    /// <summary><c>--cores LIST</c>: core counts such as 1,2,4; refused above this machine's count. Null when not given.</summary>
    public static Option<IReadOnlyList<int>?> Cores(int machineCores, string description) => new("--cores")
    {
        HelpName = "LIST",
        Description = description,
        CustomParser = result => result.Tokens is [var list] ? Report(result, () => ParseCores(list.Value, machineCores)) : null,
    };

    /// <summary><c>--launches N</c>: how many fresh processes measure the same thing, 1 to <paramref name="most"/>.</summary>
    public static Option<int> Launches(int defaultValue, int most, string description)
        => WholeNumber("--launches", "N", defaultValue, 1, most, description);

    /// <summary><c>--out DIR</c>: where the command writes; null when not given, so the command picks its own default.</summary>
    public static Option<string?> Out(string description) => new("--out")
    {
        HelpName = "DIR",
        Description = description,
    };

    /// <summary><c>--quick</c>: smoke-test sizes, to check a change, never to publish.</summary>
    public static Option<bool> Quick(string description) => new("--quick") { Description = description };

    /// <summary>The value of <paramref name="option"/>: as given; else, in a quick run, <paramref name="whenQuick"/>; else its default.</summary>
    public static T QuickOr<T>(ParseResult parse, Option<T> option, bool quick, T whenQuick)
    {
        ArgumentNullException.ThrowIfNull(parse);
        return quick && parse.GetResult(option) is not { Implicit: false } ? whenQuick : parse.GetValue(option)!;
    }

    /// <summary>
    /// The child protocol's hidden <c>--result FILE</c>: given, this process is a child that writes its result there (see
    /// <see cref="Runs.BenchmarkProcess"/>).
    /// </summary>
    public static Option<string?> Result() => new(Runs.BenchmarkProcess.ResultOption) { Hidden = true, HelpName = "FILE" };

    /// <summary>A whole-number option from <paramref name="least"/> to <paramref name="most"/>.</summary>
    public static Option<int> WholeNumber(string name, string helpName, int defaultValue, int least, int most, string description) => Bounded(
        name,
        helpName,
        defaultValue,
        description,
        (string text, out int value) => int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value) && value >= least && value <= most,
        string.Create(CultureInfo.InvariantCulture, $"a whole number from {least:N0} to {most:N0}"));

    /// <summary>A positive number of seconds (fractions allowed).</summary>
    public static Option<double> Seconds(string name, double defaultValue, string description) => Bounded(
        name,
        "N",
        defaultValue,
        description,
        (string text, out double value) => double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value) && value > 0 && double.IsFinite(value),
        "a number of seconds above 0");

    // One value checked by one rule; a bad value is one line naming the option, what it needs and what was given.
    private static Option<T> Bounded<T>(string name, string helpName, T defaultValue, string description, TryParse<T> parse, string needs) => new(name)
    {
        HelpName = helpName,
        Description = description,
        DefaultValueFactory = _ => defaultValue,
        CustomParser = result =>
        {
            if (result.Tokens is not [var token])
            {
                return defaultValue;
            }

            if (parse(token.Value, out var value))
            {
                return value;
            }

            result.AddError($"{name} needs {needs}, not '{token.Value}'.");
            return defaultValue;
        },
    };

    /// <summary>Core counts from "1,2,4", sorted and distinct; 1 and all cores when <paramref name="list"/> is null.</summary>
    /// <exception cref="UsageException">An entry is not a whole number from 1 to this machine's count (at most <see cref="MostCores"/>).</exception>
    public static IReadOnlyList<int> ParseCores(string? list, int machineCores)
    {
        var most = Math.Min(machineCores, MostCores);
        if (list is null)
        {
            return [.. new[] { 1, most }.Distinct()];
        }

        var requested = new List<int>();
        foreach (var entry in list.Split(',', StringSplitOptions.TrimEntries))
        {
            if (!int.TryParse(entry, NumberStyles.None, CultureInfo.InvariantCulture, out var count))
            {
                throw new UsageException($"--cores: '{entry}' is not a whole number; give core counts such as --cores 1,2,4.");
            }

            if (count < 1 || count > most)
            {
                throw new UsageException(string.Create(CultureInfo.InvariantCulture, $"--cores: {count} is not a core count of this machine; each must be from 1 to {most}."));
            }

            requested.Add(count);
        }

        return [.. requested.Distinct().Order()];
    }

    /// <summary>Runs a parse that throws <see cref="UsageException"/>, turning its message into the option's parse error.</summary>
    private static T? Report<T>(ArgumentResult result, Func<T> parse)
    {
        try
        {
            return parse();
        }
        catch (UsageException usage)
        {
            result.AddError(usage.Message);
            return default;
        }
    }

    private delegate bool TryParse<T>(string text, out T value);
}
