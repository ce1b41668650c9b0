using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Workers;

/// <summary>Creates <see cref="IWorkerPool"/> instances.</summary>
public static class WorkerPool
{
    /// <summary>Creates an elastic worker pool and starts its <see cref="WorkerPoolOptions.MinWorkers"/> workers.</summary>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    /// <returns>A running pool.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A time span is not positive (the delay may be zero) or is longer than a timer accepts, the
    /// minimum worker count is negative, the maximum is below 1 or below the minimum, or the retirement policy is unknown.</exception>
    /// <exception cref="ArgumentNullException">The options' <see cref="WorkerPoolOptions.TimeProvider"/> is <see langword="null"/>.</exception>
    public static IWorkerPool Create(WorkerPoolOptions? options = null)
    {
        options ??= new WorkerPoolOptions();
        Validate(options);
        return new ElasticWorkerPool(options);
    }

    private static void Validate(WorkerPoolOptions options)
    {
        if (!Enum.IsDefined(options.Retirement))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.Retirement, "Unknown retirement policy.");
        }

        TimerSpan.ThrowIfOutOfRange(options.RetirementInterval, TimeSpan.FromTicks(1), "options.RetirementInterval");
        TimerSpan.ThrowIfOutOfRange(options.IdleTimeout, TimeSpan.FromTicks(1), "options.IdleTimeout");
        TimerSpan.ThrowIfOutOfRange(options.RetirementDelay, TimeSpan.Zero, "options.RetirementDelay");

        ArgumentOutOfRangeException.ThrowIfNegative(options.MinWorkers, "options.MinWorkers");
        if (options.MaxWorkers < Math.Max(1, options.MinWorkers))
        {
            throw new ArgumentOutOfRangeException("options.MaxWorkers", options.MaxWorkers, $"The most workers must be at least 1 and at least the minimum ({options.MinWorkers}).");
        }

        ArgumentNullException.ThrowIfNull(options.TimeProvider, "options.TimeProvider");
    }
}
