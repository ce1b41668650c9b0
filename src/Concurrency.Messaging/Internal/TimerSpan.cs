namespace Concurrency.Messaging.Internal;

/// <summary>The longest span an <see cref="ITimer"/> accepts, and the check of a timed option against it.</summary>
internal static class TimerSpan
{
    /// <summary>The longest span a timer accepts: <see cref="uint.MaxValue"/> - 1 milliseconds, about 49.7 days.</summary>
    public static readonly TimeSpan Max = TimeSpan.FromMilliseconds(uint.MaxValue - 1);

    /// <summary>Throws unless <paramref name="value"/> is at least <paramref name="least"/> and at most <see cref="Max"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">It is not.</exception>
    public static void ThrowIfOutOfRange(TimeSpan value, TimeSpan least, string paramName)
    {
        if (value < least || value > Max)
        {
            throw new ArgumentOutOfRangeException(paramName, value, $"The time span must be at least {least} and at most {Max} (the longest a timer accepts).");
        }
    }
}
