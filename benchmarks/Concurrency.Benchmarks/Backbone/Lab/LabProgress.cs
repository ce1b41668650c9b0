using System.Globalization;
using Spectre.Console;

namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// The lab's progress, one row per run (an experiment at a core count): on a terminal a progress bar per row that fits
/// the terminal's width (its label is shortened to what is left beside the bar, the percentage and the time); when the
/// output is redirected or not the console, plain lines, one each time a row's step changes.
/// </summary>
internal static class LabProgress
{
    // What the bar, percentage and elapsed-time columns take with their padding, beside the label.
    private const int BarWidth = 16;
    private const int ColumnsBesideLabel = BarWidth + 5 + 9 + 6;

    /// <summary>Runs <paramref name="work"/>, handing it one reporter per row: (fraction done, step).</summary>
    public static void Show(TextWriter output, IReadOnlyList<string> rows, Action<IReadOnlyList<Action<double, string>>> work)
    {
        var terminal = ReferenceEquals(output, Console.Out) && !Console.IsOutputRedirected;
        if (!terminal)
        {
            work([.. rows.Select(row => PlainLines(output, row))]);
            return;
        }

        var console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(output), Interactive = InteractionSupport.Yes });
        Bars(console, rows, work);
    }

    /// <summary>The bars on <paramref name="console"/>, each label fitted to its width.</summary>
    public static void Bars(IAnsiConsole console, IReadOnlyList<string> rows, Action<IReadOnlyList<Action<double, string>>> work)
    {
        var labelWidth = Math.Max(20, console.Profile.Width - ColumnsBesideLabel);
        console.Progress()
            .AutoClear(false)
            .Columns(new TaskDescriptionColumn { Alignment = Justify.Left }, new ProgressBarColumn { Width = BarWidth }, new PercentageColumn(), new ElapsedTimeColumn())
            .Start(progress =>
            {
                var tasks = rows.Select(row => progress.AddTask(Fit(row, "waiting", labelWidth), autoStart: false, maxValue: 1)).ToList();
                work([.. rows.Select((row, i) => (Action<double, string>)((fraction, step) =>
                {
                    var task = tasks[i];
                    if (!task.IsStarted)
                    {
                        task.StartTask();
                    }

                    task.Value = fraction;
                    task.Description = Fit(row, step, labelWidth);
                    if (fraction >= 1)
                    {
                        task.StopTask();
                    }
                }))]);
            });
    }

    /// <summary>"ROW: STEP", shortened with an ellipsis to <paramref name="width"/> characters, escaped for markup.</summary>
    public static string Fit(string row, string step, int width)
    {
        var text = $"{row}: {step}";
        return Markup.Escape(text.Length <= width ? text : string.Concat(text.AsSpan(0, width - 1), "…"));
    }

    private static Action<double, string> PlainLines(TextWriter output, string row)
    {
        string? last = null;
        return (fraction, step) =>
        {
            if (step != last)
            {
                last = step;
                output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{row}: {step} ({fraction:0%})"));
                output.Flush();
            }
        };
    }
}
