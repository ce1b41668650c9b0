using System.Numerics;

namespace Concurrency.Messaging.Tests;

/// <summary>The running maximum several tests keep of what many threads measure at once (the most inside, the slowest).</summary>
internal static class InterlockedMax
{
    /// <summary>
    /// Raises <paramref name="location"/> to <paramref name="value"/> unless it already holds as much. Safe against other
    /// threads raising it at once: every read and write of the field is a compare-exchange, and the first one, against the
    /// smallest value, reads it atomically whatever its width.
    /// </summary>
    public static void Raise<T>(ref T location, T value)
        where T : struct, IBinaryInteger<T>, IMinMaxValue<T>
    {
        var seen = T.MinValue;
        while (value > seen)
        {
            var before = Interlocked.CompareExchange(ref location, value, seen);
            if (before == seen)
            {
                return;
            }

            seen = before;
        }
    }
}
