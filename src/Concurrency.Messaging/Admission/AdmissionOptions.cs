namespace Concurrency.Messaging.Admission;

/// <summary>Options for <see cref="AdmissionGate.Create(AdmissionOptions?)"/>. The defaults are gSuneido's: a limit of 200 outstanding, throttling from 100.</summary>
public sealed record AdmissionOptions
{
    /// <summary>Gets the most work items outstanding at once; an entry past it is rejected. Defaults to 200.</summary>
    public int Limit { get; init; } = 200;

    /// <summary>Gets what an entry does as the outstanding count grows. Defaults to <see cref="AdmissionPolicy.Reject"/>.</summary>
    public AdmissionPolicy Policy { get; init; } = AdmissionPolicy.Reject;

    /// <summary>
    /// Gets the outstanding count from which <see cref="AdmissionPolicy.Throttle"/> delays an entry; below <see cref="Limit"/>.
    /// Defaults to 100. Not used under <see cref="AdmissionPolicy.Reject"/>.
    /// </summary>
    public int ThrottleThreshold { get; init; } = 100;

    /// <summary>
    /// Gets how long <see cref="AdmissionPolicy.Throttle"/> delays an entry that finds the threshold reached. Defaults to
    /// 100 ms (the seed's "throttled enough to prevent hitting the limit e.g to 10 transactions per second").
    /// </summary>
    public TimeSpan ThrottleDelay { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>Gets the clock that times the throttle's delays (a fake one in tests). Defaults to <see cref="TimeProvider.System"/>.</summary>
    public TimeProvider TimeProvider { get; init; } = TimeProvider.System;
}
