using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Concurrency.Benchmarks.Runs;

namespace Concurrency.Benchmarks.Lab;

/// <summary>
/// One experiment at one core count in a process of its own, so its pinning, its thread pool and its garbage do not leak
/// into the next. The child prints progress lines ("@progress FRACTION STEP") and writes its outcome as JSON to a file.
/// </summary>
internal static class LabChild
{
    private const string ProgressPrefix = "@progress ";

    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(60);

    /// <summary>In the child: pins, runs, writes the outcome. Returns the exit code.</summary>
    public static int RunHere(LabOptions options, TextWriter output, TextWriter error)
    {
        var experiment = options.Experiments[0];
        var cores = options.Cores[0];
        CorePinning.PinTo(cores);
        try
        {
            var context = new LabContext(
                cores,
                options.Quick,
                (fraction, step) =>
                {
                    output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{ProgressPrefix}{fraction:0.000} {step}"));
                    output.Flush();
                },
                peers: options.Peers);
            var outcome = experiment.Run(context);
            File.WriteAllText(options.ResultFile!, JsonSerializer.Serialize(outcome));
            return 0;
        }
        catch (LabVerificationException failure)
        {
            error.WriteLine($"{experiment.Name} at {cores} cores did not verify: {failure.Message}");
            return 1;
        }
    }

    /// <summary>In the parent: starts the child, passes its progress on, and returns its outcome.</summary>
    /// <exception cref="InvalidOperationException">The child failed or ran past the limit; the message carries its error output.</exception>
    public static LabOutcome Start(ILabExperiment experiment, int cores, bool quick, LabPeers peers, Action<double, string> progress)
    {
        var resultFile = Path.GetTempFileName();
        try
        {
            string[] arguments = ["lab", "--child", experiment.Name, "--cores", cores.ToString(CultureInfo.InvariantCulture), "--result", resultFile];
            var start = BenchmarkProcess.StartInfo([.. arguments, .. quick ? ["--quick"] : Array.Empty<string>(), .. peers.Arguments()]);
            start.RedirectStandardError = true;

            // The runtime sizes its thread pool and spin waits from this; the benchmark jobs set the same tiering knob.
            start.Environment["DOTNET_PROCESSOR_COUNT"] = cores.ToString(CultureInfo.InvariantCulture);
            start.Environment["DOTNET_TC_DelaySingleProcMultiplier"] = "1";

            using var child = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {experiment.Name}.");
            var errors = child.StandardError.ReadToEndAsync();
            while (child.StandardOutput.ReadLine() is { } line)
            {
                if (line.StartsWith(ProgressPrefix, StringComparison.Ordinal))
                {
                    var rest = line[ProgressPrefix.Length..];
                    var space = rest.IndexOf(' ', StringComparison.Ordinal);
                    if (space > 0 && double.TryParse(rest[..space], NumberStyles.Float, CultureInfo.InvariantCulture, out var fraction))
                    {
                        progress(fraction, rest[(space + 1)..]);
                    }
                }
            }

            if (!child.WaitForExit(Limit))
            {
                child.Kill(entireProcessTree: true);
                throw new InvalidOperationException($"{experiment.Name} at {cores} cores ran past {Limit.TotalMinutes} minutes and was stopped.");
            }

            if (child.ExitCode != 0)
            {
                throw new InvalidOperationException($"{experiment.Name} at {cores} cores failed (exit {child.ExitCode}): {errors.Result.Trim()}");
            }

            return JsonSerializer.Deserialize<LabOutcome>(File.ReadAllText(resultFile))
                ?? throw new InvalidOperationException($"{experiment.Name} at {cores} cores wrote no outcome.");
        }
        finally
        {
            File.Delete(resultFile);
        }
    }
}
