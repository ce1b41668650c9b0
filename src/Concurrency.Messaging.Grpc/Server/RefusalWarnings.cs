using System.Collections.Concurrent;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Spaces the warnings for refused streams: at most one per reason per interval, the next one counting those held back.
/// A client that is refused can come back at once, as often as it likes; unspaced, a flood of refusals is a flood of the
/// log, which costs the server more than the refusals do and buries the lines that matter.
/// </summary>
internal sealed class RefusalWarnings(TimeProvider clock, TimeSpan interval)
{
    // Keyed by the reason, one of the few the server names in code: a client cannot add keys.
    private readonly ConcurrentDictionary<string, Window> _byReason = new(StringComparer.Ordinal);

    /// <summary>
    /// Says whether this refusal is to be warned of: true for the first of its reason in an interval, with
    /// <paramref name="suppressed"/> the count of that reason's refusals not warned of since the last warning.
    /// </summary>
    public bool TryWarn(string reason, out int suppressed)
    {
        var window = _byReason.GetOrAdd(reason, static _ => new Window());
        var now = clock.GetTimestamp();
        lock (window.Gate)
        {
            if (window.Warned && clock.GetElapsedTime(window.LastWarning, now) < interval)
            {
                window.Suppressed++;
                suppressed = 0;
                return false;
            }

            suppressed = window.Suppressed;
            window.Suppressed = 0;
            window.LastWarning = now;
            window.Warned = true;
            return true;
        }
    }

    private sealed class Window
    {
        public readonly Lock Gate = new();

        // The three below are guarded by Gate.
        public long LastWarning;
        public int Suppressed;
        public bool Warned;
    }
}
