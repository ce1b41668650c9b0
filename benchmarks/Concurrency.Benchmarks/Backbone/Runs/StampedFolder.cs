using System.Globalization;

namespace Concurrency.Benchmarks.Backbone.Runs;

/// <summary>
/// Where a command writes when it was not told where: <c>results/runs/COMMAND/yyyy-MM-dd-HHmmss</c>, a folder of its own,
/// one scheme for every command, never over the committed results (those are written only when <c>--out</c> names them).
/// </summary>
public static class StampedFolder
{
    /// <summary>The folder every command's own dated folders go under, relative to where it runs.</summary>
    public const string Runs = "results/runs";

    /// <summary>A new folder's path under <paramref name="baseDirectory"/>/results/runs/<paramref name="command"/>, named for <paramref name="now"/>.</summary>
    public static string Create(string command, string baseDirectory = "", DateTime? now = null)
    {
        var stamp = (now ?? DateTime.Now).ToString("yyyy-MM-dd-HHmmss", CultureInfo.InvariantCulture);
        var path = Path.Combine(baseDirectory, Runs, command, stamp);
        for (var n = 2; Directory.Exists(path); n++)
        {
            path = Path.Combine(baseDirectory, Runs, command, string.Create(CultureInfo.InvariantCulture, $"{stamp}-{n}"));
        }

        return path;
    }
}
