using System.Diagnostics;
using System.Globalization;
using System.Reactive.Concurrency;
using System.Reactive.Linq;
using Concurrency.Benchmarks.Backbone.Harness;
using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

// ObserveOnRing (4,096 slots) as the loop runs it: its path, message, consumer and verification, 10,000,000 preallocated
// messages a run, one path for the process, warm-up of at least 3 s and 2 runs, then 5 runs; prints the core round trip
// (ns, two threads handing a counter back and forth: about 100 in the machine's good state, 400 in its slow one) and the
// median msg/s [lowest, highest] in millions. Modes (the first argument):
//   (none)  ObserveOnRing alone in its process;
//   rx      first Rx's ObserveOn on the task pool through the same kind of path, as the loop does before ObserveOnRing:
//           the subject's call to its observer then sees two types, and the operator's OnNext is compiled on its own,
//           as shared generic code (in a program that only ever feeds one ring it is inlined into the caller, exactly typed);
//   ring16  a Ring pipe of 16 slots instead, through the loop's path (PipePath);
//   plain   the rings' plain program's shape instead: a one-long record and a summing handler (see ../ring-probe).
const int Count = 10_000_000;
var mode = args.Length > 0 ? args[0] : string.Empty;
if (mode == "plain")
{
    Plain.Run(Count);
    Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"rt {RoundTrip.Measure():F0}"));
    return;
}

var block = Message.Preallocate(Count);
if (mode == "rx")
{
    using var rx = new ObservablePath(s => s.ObserveOn(TaskPoolScheduler.Default));
    var rxWarm = Stopwatch.StartNew();
    for (var w = 0; rxWarm.Elapsed < TimeSpan.FromSeconds(3) || w < 2; w++)
    {
        rx.Consumers.Arm(block.Length);
        rx.Post(block);
        rx.Consumers.WaitForBlock("rx");
        rx.Consumers.VerifyBlock("rx");
    }

    rx.Complete();
}

using IMessagePath path = mode == "ring16"
    ? new PipePath(PipeKind.Ring, new PipeOptions { Capacity = 16 })
    : new ObservablePath(s => s.ObserveOnRing(4096));
var warm = Stopwatch.StartNew();
for (var w = 0; warm.Elapsed < TimeSpan.FromSeconds(3) || w < 2; w++)
{
    RunOnce();
}

var rates = Enumerable.Range(0, 5).Select(_ => RunOnce()).Order().ToArray();
path.Complete();
Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"rt {RoundTrip.Measure():F0}"));
Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{(mode == "ring16" ? "Ring, capacity 16" : "ObserveOnRing")} {rates[2] / 1e6:F1} [{rates[0] / 1e6:F1}, {rates[4] / 1e6:F1}]"));

double RunOnce()
{
    path.Consumers.Arm(block.Length);
    var watch = Stopwatch.StartNew();
    path.Post(block);
    path.Consumers.WaitForBlock("probe");
    watch.Stop();
    path.Consumers.VerifyBlock("probe");
    return block.Length / watch.Elapsed.TotalSeconds;
}

// The rings' plain program's shape (its Item and Tally, ../ring-probe/Tally.cs): a fresh path per run, a summing handler.
internal static class Plain
{
    public static void Run(int count)
    {
        var messages = new Item[count];
        for (var i = 0; i < count; i++)
        {
            messages[i] = new Item(i);
        }

        var warm = Stopwatch.StartNew();
        for (var w = 0; warm.Elapsed < TimeSpan.FromSeconds(3) || w < 2; w++)
        {
            Item.ObserveOnRing(messages, checkOrder: false);
        }

        var rates = Enumerable.Range(0, 5).Select(_ => Item.ObserveOnRing(messages, checkOrder: false)).Order().ToArray();
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"ObserveOnRing, plain {rates[2] / 1e6:F1} [{rates[0] / 1e6:F1}, {rates[4] / 1e6:F1}]"));
    }
}

// The core round trip: two threads hand a counter back and forth; ns per round trip (the machine's state beside a result).
internal static class RoundTrip
{
    private static long s_value;

    public static double Measure()
    {
        const int Trips = 100_000;
        Volatile.Write(ref s_value, 0);
        var other = new Thread(() =>
        {
            for (long i = 0; i < Trips; i++)
            {
                while (Volatile.Read(ref s_value) != (2 * i) + 1)
                {
                }

                Volatile.Write(ref s_value, (2 * i) + 2);
            }
        });
        other.Start();
        var watch = Stopwatch.StartNew();
        for (long i = 0; i < Trips; i++)
        {
            Volatile.Write(ref s_value, (2 * i) + 1);
            while (Volatile.Read(ref s_value) != (2 * i) + 2)
            {
            }
        }

        watch.Stop();
        other.Join();
        return watch.Elapsed.TotalNanoseconds / Trips;
    }
}
