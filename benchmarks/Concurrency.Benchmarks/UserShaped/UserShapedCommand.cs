using System.CommandLine;
using System.Globalization;
using Concurrency.Benchmarks.Cli;

namespace Concurrency.Benchmarks.UserShaped;

/// <summary>
/// <c>-- user-shaped [--paths LIST] [--phases cold,steady] [--cores 1,2] [--messages N] [--launches N] [--warm-seconds S]
/// [--env NAME=VALUE]...</c>: <see cref="UserShapedPipes"/> on the command line. Hidden while the program's commands
/// are being restructured; the child options are the launcher's own.
/// </summary>
public static class UserShapedCommand
{
    internal const string ChildPathOption = "--child-path";
    internal const string ChildPhaseOption = "--child-phase";
    internal const string ChildCoresOption = "--child-cores";
    internal const string MessagesOption = "--messages";
    internal const string WarmOption = "--warm-seconds";

    public static Command Create(int machineCores)
    {
        var paths = new Option<string?>("--paths") { HelpName = "LIST", Description = $"paths, comma-separated (default all): {string.Join(", ", Enum.GetNames<UserShapedPath>())}" };
        var phases = new Option<string?>("--phases") { HelpName = "LIST", Description = "cold, steady, or cold,steady (the default)" };
        var cores = CommonOptions.Cores(machineCores, "core counts to pin each launch to, such as 1,2 (default: 1 and all cores)");
        var messages = CommonOptions.WholeNumber(MessagesOption, "N", 10_000_000, 1, int.MaxValue, "messages in the measured run and in each warm round");
        var launches = CommonOptions.Launches(5, 99, "fresh processes per path, phase and core count");
        var warm = CommonOptions.Seconds(WarmOption, 60, "how long a steady launch runs the same pipe before it measures");
        var environment = new Option<string[]>("--env") { HelpName = "NAME=VALUE", Description = "a variable set in every launch, such as DOTNET_TieredCompilation=0 (repeatable)", AllowMultipleArgumentsPerToken = false };
        var childPath = new Option<UserShapedPath?>(ChildPathOption) { Hidden = true };
        var childPhase = new Option<UserShapedPhase>(ChildPhaseOption) { Hidden = true };
        var childCores = new Option<int>(ChildCoresOption) { Hidden = true };
        var result = CommonOptions.Result();
        var command = new Command(UserShapedPipes.CommandName, "Issue 26's plain program: each path built through its public API with default options, one producer posting long 0..n-1 into sum += m, Complete and Completion, the sum checked; a fresh process per launch, cold and after a warm time on the same pipe, paths interleaved ABBA. Prints msg/s and CPU ns/msg.")
        {
            paths, phases, cores, messages, launches, warm, environment, childPath, childPhase, childCores, result,
        };
        command.Hidden = true;
        command.SetAction(parse =>
        {
            var warmTime = TimeSpan.FromSeconds(parse.GetValue(warm));
            if (parse.GetValue(result) is { } resultFile)
            {
                var path = parse.GetValue(childPath) ?? throw new UsageException($"{UserShapedPipes.CommandName}: a launch needs {ChildPathOption}.");
                UserShapedPipes.MeasureInChild(path, parse.GetValue(childPhase), parse.GetValue(childCores), parse.GetValue(messages), warmTime, resultFile);
                return 0;
            }

            var options = new UserShapedOptions(
                ParseList<UserShapedPath>(parse.GetValue(paths)),
                ParseList<UserShapedPhase>(parse.GetValue(phases)),
                parse.GetValue(cores) ?? CommonOptions.ParseCores(null, machineCores),
                parse.GetValue(messages),
                parse.GetValue(launches),
                warmTime,
                ParseEnvironment(parse.GetValue(environment) ?? []));
            return UserShapedPipes.Run(options, parse.InvocationConfiguration.Output);
        });
        return command;
    }

    private static List<TEnum> ParseList<TEnum>(string? list)
        where TEnum : struct, Enum
    {
        if (list is null)
        {
            return [.. Enum.GetValues<TEnum>()];
        }

        return [.. list.Split(',', StringSplitOptions.TrimEntries).Select(name => Enum.TryParse<TEnum>(name, ignoreCase: true, out var value) && Enum.IsDefined(value)
            ? value
            : throw new UsageException($"{UserShapedPipes.CommandName}: '{name}' is not one of {string.Join(", ", Enum.GetNames<TEnum>())}."))];
    }

    private static Dictionary<string, string> ParseEnvironment(string[] settings)
    {
        var environment = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var setting in settings)
        {
            var equals = setting.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0)
            {
                throw new UsageException(string.Create(CultureInfo.InvariantCulture, $"{UserShapedPipes.CommandName}: --env needs NAME=VALUE, not '{setting}'."));
            }

            environment[setting[..equals]] = setting[(equals + 1)..];
        }

        return environment;
    }
}
