using System.CommandLine;

namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// The lab's command line: <c>lab [NAME...] [--cores LIST] [--launches N] [--gc MODE] [--quick] [--out DIR] [--list]</c>
/// (and the gRPC peers' <c>--server</c>, <c>--proto-remote</c>, <c>--in-process</c>), and its child process's
/// <c>lab NAME --cores N --gc MODE [--quick] [--contender NAME] --result FILE</c> (the contender: an experiment that runs
/// each contender in a fresh process of its own names the one this child runs).
/// </summary>
/// <param name="Line">The command line this process's children start from (<see cref="LabChild.Launch"/>).</param>
public sealed record LabOptions(IReadOnlyList<ILabExperiment> Experiments, IReadOnlyList<int> Cores, bool Quick, ChildArguments Line, bool List, string? ResultFile, LabPeers Peers, int Launches = 1, bool ServerGc = false, string? Contender = null, bool Kill = false)
{
    public const string DefaultOut = "results/lab";

    /// <summary>The most launches one command may ask for.</summary>
    public const int MaxLaunches = 20;

    /// <summary>Gets whether this process is a child that runs one experiment at one core count.</summary>
    public bool Child => ResultFile is not null;

    /// <summary>The lab's symbols, for <see cref="LabCommand.Create"/> to add and <see cref="From"/> to read.</summary>
    internal sealed class Symbols(int machineCores)
    {
        public Argument<string[]> Names { get; } = new("NAME")
        {
            Arity = ArgumentArity.ZeroOrMore,
            Description = "the experiments to run (default: all; lab --list names them)",
        };

        public Option<IReadOnlyList<int>?> Cores { get; } = CommonOptions.Cores(machineCores, "core counts for the per-core experiments, e.g. --cores 1,2 (default: 1 and all)");

        public Option<int> Launches { get; } = CommonOptions.Launches(1, MaxLaunches, "run each experiment N times, a fresh process each, and publish the median of the launches with the lowest and highest");

        public Option<string> Collector { get; } = new("--gc")
        {
            HelpName = "MODE",
            Description = "the garbage collector of the experiments' processes (and of the gRPC peer process they start): workstation (the program's setting) or server",
            DefaultValueFactory = _ => LabChild.Collector(server: false),
            CustomParser = result =>
            {
                var mode = result.Tokens is [var token] ? token.Value : LabChild.Collector(server: false);
                if (mode != LabChild.Collector(server: true) && mode != LabChild.Collector(server: false))
                {
                    result.AddError($"--gc needs server or workstation, not '{mode}'.");
                }

                return mode;
            },
        };

        public Option<bool> Quick { get; } = CommonOptions.Quick("smoke-test sizes, one repetition: to check a change, not to publish ");

        public Option<string?> Out { get; } = CommonOptions.Out($"where the sections, charts and LAB.md go (default: a new folder results/runs/lab/yyyy-MM-dd-HHmmss; the published ones are --out {DefaultOut})");

        public Option<bool> List { get; } = new("--list") { Description = "the experiments, one per line" };

        public Option<string?> Server { get; } = new("--server") { HelpName = "URL", Description = "our peer server on another machine (start it there with serve), e.g. --server http://10.0.0.2:5000" };

        public Option<string?> ProtoRemote { get; } = new("--proto-remote") { HelpName = "HOST:PORT", Description = "the Proto.Remote echo peer on another machine, e.g. --proto-remote 10.0.0.2:5001" };

        public Option<string?> ReplicaPeers { get; } = new("--peers") { HelpName = "URL,URL", Description = "lab replicas: measure identity replicas already running at these addresses (started there with replica): throughput, latency and the checks; not staleness, which needs one clock" };

        public Option<bool> InProcess { get; } = new("--in-process") { Description = "host the gRPC peers in the lab's own process on loopback: a smoke option (no peer process, no restart run), not for publishing" };

        public Option<string?> Contender { get; } = new("--contender") { Hidden = true };

        public Option<bool> Kill { get; } = new("--kill") { Description = "lab nats: instead of the speed rounds, the crash trial (nats-server killed with SIGKILL a third of the way in and restarted on its store); lab replicas: the crash run (a replica killed with SIGKILL three times)" };

        public Option<string?> Result { get; } = CommonOptions.Result();

        public IEnumerable<Symbol> All => [Names, Cores, Launches, Collector, Quick, Out, List, Server, ProtoRemote, ReplicaPeers, InProcess, Contender, Kill, Result];
    }

    /// <exception cref="UsageException">An experiment name is unknown, or the options do not go together.</exception>
    internal static LabOptions From(ParseResult parse, Symbols symbols, int machineCores)
    {
        var names = parse.GetValue(symbols.Names) ?? [];
        var experiments = names.Length == 0
            ? LabExperiments.All
            : [.. names.Distinct(StringComparer.OrdinalIgnoreCase).Select(n => LabExperiments.Named(n)
                ?? throw new UsageException($"lab: no experiment is named '{n}'; lab --list shows them ({string.Join(", ", LabExperiments.All.Select(e => e.Name))})."))];
        var cores = parse.GetValue(symbols.Cores) ?? CommonOptions.ParseCores(null, machineCores);
        var result = parse.GetValue(symbols.Result);
        var contender = parse.GetValue(symbols.Contender);
        if (result is not null && (experiments.Count != 1 || cores.Count != 1))
        {
            throw new UsageException("lab child: one experiment and one core count.");
        }

        if (contender is not null && result is null)
        {
            throw new UsageException("lab: --contender is for the child processes an experiment starts.");
        }

        var quick = parse.GetValue(symbols.Quick);
        // A child's line: the lab's own as given, less what only the parent reads; LabChild.Launch sets the rest.
        var line = ChildArguments.Of(parse, symbols.Out, symbols.Launches, symbols.List, symbols.Contender);
        var peers = LabPeers.Parse(parse.GetValue(symbols.Server), parse.GetValue(symbols.ProtoRemote), parse.GetValue(symbols.InProcess), parse.GetValue(symbols.ReplicaPeers));
        return new LabOptions(experiments, cores, quick, line, parse.GetValue(symbols.List), result, peers, parse.GetValue(symbols.Launches), parse.GetValue(symbols.Collector) == LabChild.Collector(server: true), contender, parse.GetValue(symbols.Kill));
    }
}
