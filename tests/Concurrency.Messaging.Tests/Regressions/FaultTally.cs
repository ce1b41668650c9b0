using System.Collections.Concurrent;

namespace Concurrency.Messaging.Tests.Regressions;

/// <summary>Unexpected exceptions from a raw runtime run, counted by where they surfaced and their type. Thread-safe.</summary>
internal sealed class FaultTally
{
    private readonly ConcurrentDictionary<string, int> _counts = new(StringComparer.Ordinal);
    private readonly ConcurrentQueue<string> _samples = new();

    public bool IsEmpty => _counts.IsEmpty;

    public int Total => _counts.Values.Sum();

    public void Add(string site, Exception exception)
    {
        var key = $"{exception.GetType().Name} from {site}";
        _counts.AddOrUpdate(key, 1, (_, n) => n + 1);
        if (_samples.Count < 3)
        {
            _samples.Enqueue($"{key}: {exception.Message} @ {exception.StackTrace?.Split('\n').FirstOrDefault()?.Trim()}");
        }
    }

    public void Add(string site, string what)
    {
        var key = $"{what} ({site})";
        _counts.AddOrUpdate(key, 1, (_, n) => n + 1);
    }

    public override string ToString()
        => _counts.IsEmpty
            ? "no faults"
            : string.Join("; ", _counts.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => $"{p.Value} x {p.Key}"))
              + (_samples.IsEmpty ? string.Empty : $" [e.g. {string.Join(" | ", _samples)}]");
}

/// <summary>Writes a measurement where a test run shows it: the test's output and the runner's diagnostic messages.</summary>
internal static class Measurement
{
    public static void Record(string line)
    {
        var stamped = $"[.NET {Environment.Version}, {Environment.ProcessorCount} cores] {line}";
        TestContext.Current.TestOutputHelper?.WriteLine(stamped);
        TestContext.Current.SendDiagnosticMessage(stamped);
    }
}
