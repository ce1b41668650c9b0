
namespace Concurrency.Benchmarks.Actors;

/// <summary>How the ring's M tokens go round (the parts of Armstrong's ring challenge).</summary>
public enum RingPart
{
    /// <summary>One token goes round M times: every hop waits for the one before it.</summary>
    OneAtATime,

    /// <summary>M tokens injected together, each going round once: the ring's actors work side by side.</summary>
    AllAtOnce,
}
