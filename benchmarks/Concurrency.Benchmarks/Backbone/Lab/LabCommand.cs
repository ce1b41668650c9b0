using System.CommandLine;
using System.Globalization;

namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// <c>-- lab [NAME...] [--cores LIST] [--launches N] [--gc MODE] [--quick] [--out DIR]</c>: runs the workload lab's experiments (all
/// when none is named), each at each core count in a child process pinned to that many cores (N times, a fresh process
/// each, when asked for several launches), one at a time, with a progress bar per run; writes NAME.md, charts and LAB.md into results/lab. <c>lab --list</c> names the experiments. Exits 1 if any run
/// failed or did not verify (the other experiments still run and are written).
/// </summary>
public static class LabCommand
{
    public static Command Create(int machineCores)
    {
        var symbols = new LabOptions.Symbols(machineCores);
        var command = new Command("lab", "The workload lab: experiments that ask when concurrency pays, each beside the seed's figures. Each experiment runs in a process of its own, pinned to each core count in turn (or once on all cores, for those that sweep threads), one at a time; it verifies what it did and the lab exits 1 if any run failed. Writes NAME.md per experiment, its charts, and LAB.md. Without --server and --proto-remote the grpc experiment starts its own peers on loopback.");
        foreach (var symbol in symbols.All)
        {
            switch (symbol)
            {
                case Argument argument:
                    command.Add(argument);
                    break;
                case Option option:
                    command.Add(option);
                    break;
            }
        }

        command.SetAction(parse => Run(parse, symbols, machineCores));
        return command;
    }

    private static int Run(ParseResult parse, LabOptions.Symbols symbols, int machineCores)
    {
        var options = LabOptions.From(parse, symbols, machineCores);
        var (output, error) = (parse.InvocationConfiguration.Output, parse.InvocationConfiguration.Error);
        if (options.Child)
        {
            return LabChild.RunHere(options, output, error);
        }

        if (options.List)
        {
            foreach (var experiment in LabExperiments.All)
            {
                output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{experiment.Name,-14} {experiment.Description} ({(experiment.PerCoreCount ? "per core count" : "all cores")})"));
            }

            return 0;
        }

        var lab = Experiment.Start(parse, symbols.Out);
        var plan = options.Experiments
            .SelectMany(e => (e.PerCoreCount ? options.Cores : [Environment.ProcessorCount]).Select(c => (Experiment: e, Cores: c)))
            .ToList();
        var failures = new List<string>();
        var written = new List<string>();
        LabProgress.Show(output, [.. plan.Select(run => $"{run.Experiment.Name}, {Experiment.CoreCount(run.Cores)}")], rows =>
        {
            foreach (var experiment in options.Experiments)
            {
                var outcomes = new List<(int Cores, LabOutcome Outcome)>();
                foreach (var (row, cores) in plan.Select((run, i) => (Row: rows[i], run.Cores, run.Experiment)).Where(p => p.Experiment == experiment).Select(p => (p.Row, p.Cores)))
                {
                    row(0, "starting");
                    try
                    {
                        // Each launch is a fresh child process; the published value is the median of the launches.
                        var launches = lab.Launches<LabOutcome>(
                            options.Launches,
                            LabChild.Limit,
                            _ => [LabChild.Launch(options.Line, experiment, cores, options.Quick, options.ServerGc)],
                            progress: (launch, fraction, step) => row(
                                Math.Min((launch + fraction) / options.Launches, 0.999),
                                options.Launches == 1 ? step : string.Create(CultureInfo.InvariantCulture, $"launch {launch + 1}/{options.Launches}: {step}")));
                        outcomes.Add((cores, LabLaunches.Merge([.. launches.Select(l => l[0])])));
                        row(1, "done");
                    }
                    catch (Exception failure) when (failure is InvalidOperationException or ChildProcessException)
                    {
                        failures.Add(failure.Message);
                        row(1, "FAILED");
                    }
                }

                if (outcomes.Count > 0)
                {
                    written.Add(LabReport.WriteSection(lab.OutDirectory, experiment, outcomes, lab.Provenance with { FinishedUtc = DateTime.UtcNow }, options.Quick, options.Launches, options.ServerGc));
                }
            }
        });

        foreach (var path in written)
        {
            output.WriteLine($"Wrote {path}.");
        }

        if (written.Count > 0)
        {
            output.WriteLine($"Wrote {Path.Combine(lab.OutDirectory, LabReport.FileName)}.");
        }

        foreach (var failure in failures)
        {
            error.WriteLine(failure);
        }

        return failures.Count == 0 ? 0 : 1;
    }
}
