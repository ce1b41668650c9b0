namespace Concurrency.Messaging.Pipes;

/// <summary>
/// How a consumer that found nothing to do waits before looking again, before it finally parks. Polling back to back pulls
/// the producer's cache line away on every message (measured through ObserveOnRing on a 2-core VM: 5-8 M msg/s with a tight
/// poll, about 30 M with this pause); pausing lets a batch build up that one line transfer then covers. The price is up to
/// one pause (tens of microseconds) of latency for a lone message. After a few pauses it yields: when the producer is not
/// running beside us (one core, or virtual CPUs the host time-slices, as on the 2-core VM this was measured on, where two
/// busy threads each ran at about half speed) pausing only burns the time the producer needs. On one core it yields at once.
/// </summary>
internal static class Backoff
{
    /// <summary>Rounds of waiting before a consumer parks.</summary>
    public const int RoundsBeforePark = 200;

    private const int PauseSpins = 1000;

    private const int PausesBeforeYield = 10;

    public static void Wait(int round)
    {
        if (round < PausesBeforeYield && Environment.ProcessorCount > 1)
        {
            Thread.SpinWait(PauseSpins);
        }
        else
        {
            Thread.Yield();
        }
    }
}
