using System.Globalization;

namespace Concurrency.Benchmarks.Runs;

/// <summary>
/// Where a command writes when it was not told where and its files must not replace the committed results:
/// <c>results/KIND/yyyy-MM-dd-HHmmss</c>, a folder of its own.
/// </summary>
public static class StampedFolder
{
    /// <summary>A new folder's path under <paramref name="baseDirectory"/>/results/<paramref name="kind"/>, named for <paramref name="now"/>.</summary>
    public static string Create(string kind, string baseDirectory = "", DateTime? now = null)
    {
        var stamp = (now ?? DateTime.Now).ToString("yyyy-MM-dd-HHmmss", CultureInfo.InvariantCulture);
        var path = Path.Combine(baseDirectory, "results", kind, stamp);
        for (var n = 2; Directory.Exists(path); n++)
        {
            path = Path.Combine(baseDirectory, "results", kind, string.Create(CultureInfo.InvariantCulture, $"{stamp}-{n}"));
        }

        return path;
    }
}
