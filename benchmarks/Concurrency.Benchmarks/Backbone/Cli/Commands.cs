using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Invocation;
using BenchmarkDotNet.Running;
using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Backbone.Compare;
using Concurrency.Benchmarks.Backbone.Idle;
using Concurrency.Benchmarks.Backbone.Latency;
using Concurrency.Benchmarks.Backbone.Reporting;
using Concurrency.Benchmarks.CrossProcess;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Benchmarks.Replicas;

namespace Concurrency.Benchmarks.Backbone.Cli;

/// <summary>
/// The program's one command-line parser: a root command that runs benchmarks (our <c>--cores</c> and <c>--job</c>;
/// every token it does not know goes to BenchmarkDotNet) and a subcommand per other command. Every command has
/// <c>--help</c>. A first word that is no command, a bad value, or options that do not go together are one line on
/// standard error and exit code <see cref="UsageException.ExitCode"/>, before anything runs.
/// </summary>
public static class Commands
{
    /// <summary>Help wraps here when the output is not a terminal that says its width.</summary>
    private const int HelpWidth = 110;

    /// <summary>Parses <paramref name="args"/> and runs the command they name; returns its exit code.</summary>
    public static int Run(IReadOnlyList<string> args, TextWriter output, TextWriter error, int machineCores)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(error);
        var root = Create(machineCores);
        try
        {
            if (args is [var first, ..] && !first.StartsWith('-') && !root.Subcommands.Any(c => c.Name == first))
            {
                throw new UsageException(UnknownCommand(first, [.. root.Subcommands.Where(c => !c.Hidden).Select(c => c.Name)]));
            }

            var parse = root.Parse(args);
            if (parse.Errors.Count > 0 && parse.Action is not HelpAction and not RootHelpAction)
            {
                var command = parse.CommandResult.Command;
                throw new UsageException(command is RootCommand ? parse.Errors[0].Message : $"{command.Name}: {parse.Errors[0].Message}");
            }

            // Only the root passes what it does not know on (to BenchmarkDotNet); a command's stray word is a mistake.
            if (parse.CommandResult.Command is not RootCommand and var stray && parse.UnmatchedTokens is [var unknown, ..] && parse.Action is not RootHelpAction)
            {
                throw new UsageException($"{stray.Name}: unknown option or argument '{unknown}'; see {stray.Name} --help.");
            }

            return parse.Invoke(new InvocationConfiguration { Output = output, Error = error, EnableDefaultExceptionHandler = false });
        }
        catch (UsageException usage)
        {
            error.WriteLine(usage.Message);
            return UsageException.ExitCode;
        }
        catch (ChildProcessException child)
        {
            // What the child said is already one line (see below); the parent adds which launch or contender it was.
            error.WriteLine(child.Message);
            return 1;
        }
        catch (Exception failure) when (args.Contains(BenchmarkProcess.ResultOption))
        {
            // A child reports a failed measurement (a verification that found a lost message, say) as one line to its parent.
            error.WriteLine($"{failure.GetType().Name}: {failure.Message}");
            return 1;
        }
    }

    /// <summary>The command line as given, which a command records in what it writes so that it can be run again.</summary>
    public static IReadOnlyList<string> Arguments(ParseResult parse)
    {
        ArgumentNullException.ThrowIfNull(parse);
        return [.. parse.Tokens.Select(t => t.Value)];
    }

    /// <summary>The root command and every subcommand.</summary>
    internal static RootCommand Create(int machineCores)
    {
        var run = new RunArguments.Symbols(machineCores);
        var root = new RootCommand(HelpText.Run)
        {
            run.Cores,
            run.Job,
            ReportCommand.Create(),
            LoopCommand.Create(),
            ActorsCommand.Create(),
            FootprintCommand.Create(),
            LabCommand.Create(machineCores),
            ServeCommand.Create(),
            ReplicaCommand.Create(),
            ReplicaLoadCommand.Create(),
            KvReplicaCommand.Create(),
            NatsConsumeCommand.Create(),
            IdleCommand.Create(),
            LatencyCommand.Create(),
            CompareCommand.Create(),
        };

        // BenchmarkDotNet's own options (--filter, --list, --version, ...) reach it untouched.
        root.TreatUnmatchedTokensAsErrors = false;
        foreach (var version in root.Options.OfType<VersionOption>().ToList())
        {
            root.Options.Remove(version);
        }

        var help = root.Options.OfType<HelpOption>().Single();
        if (help.Action is HelpAction builtIn)
        {
            builtIn.MaxWidth = Console.IsOutputRedirected ? HelpWidth : Math.Max(60, Console.WindowWidth);
            help.Action = new RootHelpAction(builtIn);
        }

        root.SetAction(parse => BenchmarkRun.Execute(RunArguments.From(parse, run, machineCores), parse.InvocationConfiguration.Output, parse.InvocationConfiguration.Error));
        return root;
    }

    /// <summary>"unknown command 'reprot'; did you mean 'report'? Commands: ...".</summary>
    internal static string UnknownCommand(string word, IReadOnlyList<string> commands)
    {
        var nearest = commands.MinBy(c => Distance(word, c));
        var guess = nearest is not null && Distance(word, nearest) <= Math.Max(2, nearest.Length / 3) ? $" did you mean '{nearest}'?" : string.Empty;
        return $"unknown command '{word}';{guess} Commands: {string.Join(", ", commands)}; benchmark options start with '-' (see --help).";
    }

    /// <summary>The edit distance (insertions, deletions, substitutions and swaps of neighbours) between two words.</summary>
    private static int Distance(string a, string b)
    {
        var d = new int[a.Length + 1, b.Length + 1];
        for (var i = 0; i <= a.Length; i++)
        {
            d[i, 0] = i;
        }

        for (var j = 0; j <= b.Length; j++)
        {
            d[0, j] = j;
        }

        for (var i = 1; i <= a.Length; i++)
        {
            for (var j = 1; j <= b.Length; j++)
            {
                var cost = char.ToLowerInvariant(a[i - 1]) == char.ToLowerInvariant(b[j - 1]) ? 0 : 1;
                d[i, j] = Math.Min(Math.Min(d[i - 1, j] + 1, d[i, j - 1] + 1), d[i - 1, j - 1] + cost);
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                {
                    d[i, j] = Math.Min(d[i, j], d[i - 2, j - 2] + 1);
                }
            }
        }

        return d[a.Length, b.Length];
    }

    /// <summary>The help of every command; the root's is followed by BenchmarkDotNet's own options.</summary>
    private sealed class RootHelpAction(HelpAction help) : SynchronousCommandLineAction
    {
        public override int Invoke(ParseResult parseResult)
        {
            var exit = help.Invoke(parseResult);
            if (parseResult.CommandResult.Command is RootCommand)
            {
                var output = parseResult.InvocationConfiguration.Output;
                output.WriteLine(HelpText.RunNotes);
                output.WriteLine("BenchmarkDotNet's options:");
                output.Flush();
                BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(["--help"]);
            }

            return exit;
        }
    }
}
