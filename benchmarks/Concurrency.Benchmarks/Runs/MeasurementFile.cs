using System.Globalization;
using System.Text;

namespace Concurrency.Benchmarks.Runs;

/// <summary>
/// The Markdown file a measuring command (idle, footprint) writes beside the results: a title, what was measured, the
/// machine, commit and command that produced it, then the table. Printed as well as written.
/// </summary>
public static class MeasurementFile
{
    /// <returns>The path written.</returns>
    public static string Write(TextWriter output, string directory, string fileName, string title, string method, RunProvenance provenance, StringBuilder table)
    {
        var text = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"# {title}")
            .AppendLine()
            .AppendLine(method)
            .AppendLine(CultureInfo.InvariantCulture, $"Machine: {provenance.Cpu}, {provenance.LogicalCores} logical cores, {provenance.Os}, {provenance.Runtime}. Commit {provenance.CommitLabel}.")
            .AppendLine(CultureInfo.InvariantCulture, $"Command: `dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- {provenance.Arguments}`")
            .AppendLine()
            .Append(table)
            .ToString();
        Directory.CreateDirectory(directory);
        var path = Path.Combine(directory, fileName);
        File.WriteAllText(path, text);
        output.WriteLine(text);
        output.WriteLine($"Wrote {path}.");
        return path;
    }
}
