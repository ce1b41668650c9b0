using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Admission;

/// <summary>Creates <see cref="IAdmissionGate"/> instances.</summary>
public static class AdmissionGate
{
    /// <summary>Creates a gate that limits outstanding work items.</summary>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    /// <returns>A gate with nothing outstanding.</returns>
    /// <exception cref="ArgumentOutOfRangeException">The limit is not positive, the policy is unknown, or, under
    /// <see cref="AdmissionPolicy.Throttle"/>, the threshold is not between 1 and the limit less one, or the delay is not
    /// positive or longer than a timer accepts.</exception>
    /// <exception cref="ArgumentNullException">The options' <see cref="AdmissionOptions.TimeProvider"/> is <see langword="null"/>.</exception>
    public static IAdmissionGate Create(AdmissionOptions? options = null)
    {
        options ??= new AdmissionOptions();
        Validate(options);
        return new LimitedAdmissionGate(options);
    }

    private static void Validate(AdmissionOptions options)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(options.Limit, 1, "options.Limit");
        if (!Enum.IsDefined(options.Policy))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.Policy, "Unknown admission policy.");
        }

        if (options.Policy == AdmissionPolicy.Throttle)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(options.ThrottleThreshold, 1, "options.ThrottleThreshold");
            ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(options.ThrottleThreshold, options.Limit, "options.ThrottleThreshold");
            TimerSpan.ThrowIfOutOfRange(options.ThrottleDelay, TimeSpan.FromTicks(1), "options.ThrottleDelay");
        }

        ArgumentNullException.ThrowIfNull(options.TimeProvider, "options.TimeProvider");
    }
}
