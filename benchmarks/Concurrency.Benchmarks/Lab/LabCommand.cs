using System.Globalization;
using Concurrency.Benchmarks.Cli;
using Concurrency.Benchmarks.Runs;
using Spectre.Console;

namespace Concurrency.Benchmarks.Lab;

/// <summary>
/// <c>-- lab [NAME...] [--cores LIST] [--launches N] [--gc MODE] [--quick] [--out DIR]</c>: runs the workload lab's experiments (all
/// when none is named), each at each core count in a child process pinned to that many cores (N times, a fresh process
/// each, when asked for several launches), one at a time, with a progress bar per run; writes NAME.md, charts and LAB.md into results/lab. <c>lab --list</c> names the experiments. Exits 1 if any run
/// failed or did not verify (the other experiments still run and are written).
/// </summary>
public static class LabCommand
{
    public static int Run(IReadOnlyList<string> args, TextWriter output, TextWriter error)
    {
        var options = LabOptions.Parse(args, Environment.ProcessorCount);
        if (options.Child)
        {
            return LabChild.RunHere(options, output, error);
        }

        if (options.Help)
        {
            output.Write(HelpText.Lab);
            return 0;
        }

        if (options.List)
        {
            foreach (var experiment in LabExperiments.All)
            {
                output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{experiment.Name,-14} {experiment.Description} ({(experiment.PerCoreCount ? "per core count" : "all cores")})"));
            }

            return 0;
        }

        if (options.Experiments.Count == 0)
        {
            throw new UsageException("lab: no experiment is registered.");
        }

        var provenance = RunProvenance.Capture(["lab", .. args]);
        var console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Out = new AnsiConsoleOutput(output),
            Interactive = ReferenceEquals(output, Console.Out) && !Console.IsOutputRedirected ? InteractionSupport.Yes : InteractionSupport.No,
        });
        var failures = new List<string>();
        var written = new List<string>();
        console.Progress()
            .AutoClear(false)
            .Columns(new TaskDescriptionColumn { Alignment = Justify.Left }, new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn())
            .Start(progress =>
            {
                var plan = options.Experiments
                    .SelectMany(e => (e.PerCoreCount ? options.Cores : [Environment.ProcessorCount]).Select(c => (Experiment: e, Cores: c)))
                    .Select(run => (run.Experiment, run.Cores, Task: progress.AddTask(Label(run.Experiment, run.Cores, "waiting"), autoStart: false, maxValue: 1)))
                    .ToList();
                foreach (var experiment in options.Experiments)
                {
                    var outcomes = new List<(int Cores, LabOutcome Outcome)>();
                    foreach (var (_, cores, task) in plan.Where(p => p.Experiment == experiment))
                    {
                        task.StartTask();
                        try
                        {
                            // Each launch is a fresh child process; the published value is the median of the launches.
                            var launches = new List<LabOutcome>(options.Launches);
                            for (var launch = 1; launch <= options.Launches; launch++)
                            {
                                var prefix = options.Launches == 1 ? string.Empty : string.Create(CultureInfo.InvariantCulture, $"launch {launch}/{options.Launches}: ");
                                var done = (double)(launch - 1) / options.Launches;
                                launches.Add(LabChild.Start(experiment, cores, options.Quick, options.Peers, (fraction, step) =>
                                {
                                    task.Value = done + (fraction / options.Launches);
                                    task.Description = Label(experiment, cores, prefix + step);
                                }, options.ServerGc));
                            }

                            outcomes.Add((cores, LabLaunches.Merge(launches)));
                            task.Description = Label(experiment, cores, "done");
                        }
                        catch (InvalidOperationException failure)
                        {
                            failures.Add(failure.Message);
                            task.Description = Label(experiment, cores, "FAILED");
                        }

                        task.Value = 1;
                        task.StopTask();
                    }

                    if (outcomes.Count > 0)
                    {
                        written.Add(LabReport.WriteSection(options.OutDirectory, experiment, outcomes, provenance with { FinishedUtc = DateTime.UtcNow }, options.Quick, options.Launches, options.ServerGc));
                    }
                }
            });

        foreach (var path in written)
        {
            output.WriteLine($"Wrote {path}.");
        }

        if (written.Count > 0)
        {
            output.WriteLine($"Wrote {Path.Combine(options.OutDirectory, LabReport.FileName)}.");
        }

        foreach (var failure in failures)
        {
            error.WriteLine(failure);
        }

        return failures.Count == 0 ? 0 : 1;
    }

    private static string Label(ILabExperiment experiment, int cores, string step)
        => Markup.Escape(string.Create(CultureInfo.InvariantCulture, $"{experiment.Name} @ {cores} cores: {(step.Length > 64 ? step[..64] : step)}"));
}
