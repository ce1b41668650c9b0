namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// One run of the benchmark program's command line in the test's process, as a smoke test does it: the command writes into
/// an output folder of its own (passed as <c>--out</c>, deleted on dispose), its console is captured, and the run is
/// bounded by a time limit. <see cref="OutputOf"/> and <see cref="UsageErrorOf"/> run a command that returns at once and
/// writes no file (a help, a listing, a refusal).
/// </summary>
internal sealed class CommandRun : IDisposable
{
    private CommandRun(string folder, int exit, string output, string error) => (Folder, Exit, Output, Error) = (folder, exit, output, error);

    /// <summary>Gets the output folder.</summary>
    public string Folder { get; }

    /// <summary>Gets the program's exit code.</summary>
    public int Exit { get; }

    /// <summary>Gets what the program wrote to its output.</summary>
    public string Output { get; }

    /// <summary>Gets what the program wrote to its error output.</summary>
    public string Error { get; }

    /// <summary>Runs <paramref name="args"/> with <c>--out</c> a new temporary folder, within <paramref name="limit"/>.</summary>
    public static async Task<CommandRun> RunAsync(TimeSpan limit, params string[] args)
    {
        var ct = TestContext.Current.CancellationToken;
        var folder = Directory.CreateTempSubdirectory("concurrency-command-").FullName;
        try
        {
            var (output, error) = (new StringWriter(), new StringWriter());
            var exit = await Task.Run(() => Program.Run([.. args, "--out", folder], output, error), ct).WaitAsync(limit, ct);
            return new CommandRun(folder, exit, output.ToString(), error.ToString());
        }
        catch
        {
            Directory.Delete(folder, recursive: true);
            throw;
        }
    }

    /// <summary>Runs <paramref name="args"/>, checks that the program exited with 0, and returns what it wrote to its output.</summary>
    public static string OutputOf(params string[] args)
    {
        var (output, error) = (new StringWriter(), new StringWriter());
        Assert.True(Program.Run(args, output, error) == 0, error.ToString());
        return output.ToString();
    }

    /// <summary>Runs <paramref name="args"/>, checks that the program refused them as a usage error, and returns what it wrote to its error output.</summary>
    public static string UsageErrorOf(params string[] args)
    {
        var error = new StringWriter();
        Assert.Equal(Backbone.Cli.UsageException.ExitCode, Program.Run(args, new StringWriter(), error));
        return error.ToString();
    }

    /// <summary>Checks that the program exited with 0, failing with its error output if not.</summary>
    public void AssertSucceeded() => Assert.True(Exit == 0, Error);

    /// <summary>The one file in the output folder whose name matches <paramref name="pattern"/>.</summary>
    public string Single(string pattern) => Assert.Single(Directory.GetFiles(Folder, pattern));

    public void Dispose() => Directory.Delete(Folder, recursive: true);
}
