using System.Globalization;
using Concurrency.Benchmarks.Cli;

namespace Concurrency.Benchmarks.Lab;

/// <summary>
/// The lab's command line: <c>lab [NAME...] [--cores LIST] [--launches N] [--gc MODE] [--quick] [--out DIR] [--list] [--help]</c>
/// (and the gRPC peers' <c>--server</c>, <c>--proto-remote</c>, <c>--in-process</c>), and the child process's
/// <c>lab --child NAME --cores N --result FILE [--quick] [--contender NAME]</c> (the contender: an experiment that runs
/// each contender in a fresh process of its own names the one this child runs).
/// </summary>
public sealed record LabOptions(IReadOnlyList<ILabExperiment> Experiments, IReadOnlyList<int> Cores, bool Quick, string OutDirectory, bool List, bool Help, string? ResultFile, LabPeers Peers, int Launches = 1, bool ServerGc = false, string? Contender = null)
{
    public const string DefaultOut = "results/lab";

    /// <summary>The most launches one command may ask for.</summary>
    public const int MaxLaunches = 20;

    /// <summary>Gets whether this process is a child that runs one experiment at one core count.</summary>
    public bool Child => ResultFile is not null;

    /// <exception cref="UsageException">An option is unknown, incomplete or bad, or an experiment name is unknown.</exception>
    public static LabOptions Parse(IReadOnlyList<string> args, int machineCores)
    {
        var names = new List<string>();
        string? cores = null;
        string? result = null;
        var quick = false;
        var list = false;
        var help = false;
        var outDirectory = DefaultOut;
        string? server = null;
        string? protoRemote = null;
        var inProcess = false;
        var launches = 1;
        var serverGc = false;
        string? contender = null;
        for (var i = 0; i < args.Count; i++)
        {
            switch (args[i])
            {
                case "--cores":
                    cores = Value(args, ref i, "a list of core counts, for example --cores 1,2");
                    break;
                case "--out":
                    outDirectory = Value(args, ref i, "a folder");
                    break;
                case "--server":
                    server = Value(args, ref i, "a peer's address, for example --server http://10.0.0.2:5000");
                    break;
                case "--proto-remote":
                    protoRemote = Value(args, ref i, "a Proto.Remote peer's HOST:PORT, for example --proto-remote 10.0.0.2:5001");
                    break;
                case "--in-process":
                    inProcess = true;
                    break;
                case "--launches":
                    var text = Value(args, ref i, "a number of launches, for example --launches 3");
                    if (!int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out launches) || launches is < 1 or > MaxLaunches)
                    {
                        throw new UsageException(string.Create(CultureInfo.InvariantCulture, $"lab: --launches needs a whole number from 1 to {MaxLaunches}, not '{text}'."));
                    }

                    break;
                case "--gc":
                    serverGc = Value(args, ref i, "a collector, server or workstation") switch
                    {
                        "server" => true,
                        "workstation" => false,
                        var other => throw new UsageException($"lab: --gc needs server or workstation, not '{other}'."),
                    };
                    break;
                case "--quick":
                    quick = true;
                    break;
                case "--list":
                    list = true;
                    break;
                case "--help" or "-h" or "-?":
                    help = true;
                    break;
                case "--child":
                    names.Add(Value(args, ref i, "an experiment name"));
                    break;
                case "--result":
                    result = Value(args, ref i, "a file");
                    break;
                case "--contender":
                    contender = Value(args, ref i, "a contender's name");
                    break;
                case var option when option.StartsWith('-'):
                    throw new UsageException($"lab: unknown option '{option}'; see lab --help.");
                default:
                    names.Add(args[i]);
                    break;
            }
        }

        var experiments = names.Count == 0
            ? LabExperiments.All
            : [.. names.Distinct(StringComparer.OrdinalIgnoreCase).Select(n => LabExperiments.Named(n)
                ?? throw new UsageException($"lab: no experiment is named '{n}'; lab --list shows them ({string.Join(", ", LabExperiments.All.Select(e => e.Name))})."))];
        var coreCounts = RunArguments.ParseCores(cores, machineCores);
        if (result is not null && (experiments.Count != 1 || coreCounts.Count != 1))
        {
            throw new UsageException("lab --child: one experiment and one core count.");
        }

        if (contender is not null && result is null)
        {
            throw new UsageException("lab: --contender is for the child processes an experiment starts.");
        }

        return new LabOptions(experiments, coreCounts, quick, outDirectory, list, help, result, LabPeers.Parse(server, protoRemote, inProcess), launches, serverGc, contender);
    }

    private static string Value(IReadOnlyList<string> args, ref int i, string expected)
    {
        if (i + 1 >= args.Count || args[i + 1].StartsWith('-'))
        {
            throw new UsageException(string.Create(CultureInfo.InvariantCulture, $"lab: {args[i]} needs {expected}."));
        }

        return args[++i];
    }
}
