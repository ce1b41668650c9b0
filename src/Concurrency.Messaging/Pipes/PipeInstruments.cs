using System.Diagnostics.Metrics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// The pipes' instruments on <see cref="LibraryMeter"/>: observable counters that sum, when a listener collects, the
/// counts every pipe keeps anyway (<see cref="IPipeCounts"/>), so a pipe pays nothing for them on its hot path. A pipe
/// whose last consumer exited adds its final counts to the retired totals and leaves the live set, both under
/// <see cref="Gate"/>, which a collection holds too: the sums never go back.
/// </summary>
/// <remarks>
/// A pipe that is never completed and then collected leaves the live set without retiring (it is held weakly): its
/// counts drop out of the sums. Complete or dispose pipes.
/// </remarks>
internal static class PipeInstruments
{
    private static readonly Lock Gate = new();
    private static long s_retiredHandled;   // guarded by Gate
    private static long s_retiredDropped;   // guarded by Gate
    private static long s_retiredUnhandled; // guarded by Gate

    // Every instrument is made when the type is first touched (a pipe registering), so a listener sees all of them at once.
    public static LiveInstances<IPipeCounts> Live { get; } = new();

    public static ObservableCounter<long> Handled { get; } = LibraryMeter.Meter.CreateObservableCounter(
        "concurrency.pipe.messages.handled", () => Sum(ref s_retiredHandled, static pipe => pipe.HandledCount), "{message}",
        "Messages a pipe's handler returned from.");

    public static ObservableCounter<long> Dropped { get; } = LibraryMeter.Meter.CreateObservableCounter(
        "concurrency.pipe.messages.dropped", () => Sum(ref s_retiredDropped, static pipe => pipe.DroppedCount), "{message}",
        "Messages a bounded pipe's full mode dropped.");

    public static ObservableCounter<long> Unhandled { get; } = LibraryMeter.Meter.CreateObservableCounter(
        "concurrency.pipe.messages.unhandled", () => Sum(ref s_retiredUnhandled, static pipe => pipe.UnhandledCount), "{message}",
        "Messages a pipe accepted and never handled: the one whose handler threw, and those left at a fault or an abort.");

    /// <summary>Once per pipe, after its last consumer exited: its counts are final.</summary>
    public static void Retire(IPipeCounts pipe)
    {
        lock (Gate)
        {
            if (!Live.Remove(pipe))
            {
                return;
            }

            s_retiredHandled += pipe.HandledCount;
            s_retiredDropped += pipe.DroppedCount;
            s_retiredUnhandled += pipe.UnhandledCount;
        }
    }

    private static long Sum(ref long retired, Func<IPipeCounts, long> read)
    {
        lock (Gate)
        {
            return retired + Live.Sum(read);
        }
    }
}
