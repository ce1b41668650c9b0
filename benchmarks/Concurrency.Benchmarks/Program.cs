namespace Concurrency.Benchmarks;

/// <summary>
/// <c>dotnet run -c Release --project benchmarks/Concurrency.Benchmarks [-- --cores 1,2,4 --filter *Topology*]</c> runs
/// benchmarks (the headline set when no filter is given, never an interactive menu) and exits non-zero if any failed;
/// <c>-- report</c> turns the results into REPORT.md, README-table.md and charts. <c>--help</c> says more, and
/// <c>COMMAND --help</c> for each command.
/// </summary>
public static class Program
{
    public static int Main(string[] args) => Run(args, Console.Out, Console.Error);

    /// <summary>The whole program with its output streams given, so tests can read what it printed and its exit code.</summary>
    public static int Run(string[] args, TextWriter output, TextWriter error) => Commands.Run(args, output, error, Environment.ProcessorCount);
}
