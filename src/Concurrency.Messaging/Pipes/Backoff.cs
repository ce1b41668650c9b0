namespace Concurrency.Messaging.Pipes;

/// <summary>
/// How a consumer that found nothing to do waits before looking again, before it finally parks. Polling back to back pulls
/// the producer's cache line away on every message (measured through ObserveOnRing on a 2-core VM: 5-8 M msg/s with a tight
/// poll, about 30 M with this pause); pausing lets a batch build up that one line transfer then covers. The price is up to
/// one pause (tens of microseconds) of latency for a lone message. After the spins it yields; on one core it yields at once,
/// since spinning there only delays the producer.
/// </summary>
internal static class Backoff
{
    /// <summary>Rounds of waiting before a consumer parks.</summary>
    public const int RoundsBeforePark = 200;

    private const int PauseSpins = 1000;

    public static void Wait(int round)
    {
        if (round < RoundsBeforePark / 2 && Environment.ProcessorCount > 1)
        {
            Thread.SpinWait(PauseSpins);
        }
        else
        {
            Thread.Yield();
        }
    }
}
