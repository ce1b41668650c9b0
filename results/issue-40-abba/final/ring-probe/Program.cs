using System.Diagnostics;
using System.Globalization;
using Concurrency.Messaging.Pipes;

// Ring pipes of 16, 64 and 4,096 slots and ObserveOnRing (4,096) as a user's program moves messages through them: one
// producer posts 10,000,000 preallocated messages, a fresh path per run, at least 3 s and 2 runs of warm-up per path, then
// 5 runs; prints each path's median msg/s [lowest, highest]. Every run is checked (count and sum). An argument names one path.
// The handler sums; in ObserveOnRingOrdered it also checks each message is the one after the last, as the loop's does.
const int Count = 10_000_000;
var messages = new Item[Count];
for (var i = 0; i < Count; i++)
{
    messages[i] = new Item(i);
}

var only = args.Length > 0 ? args[0] : null;
(string Name, Func<double> Run)[] paths =
[
    ("Ring16", () => RunRing(16)),
    ("Ring64", () => RunRing(64)),
    ("Ring4096", () => RunRing(4096)),
    ("ObserveOnRing", () => Item.ObserveOnRing(messages, checkOrder: false)),
    ("ObserveOnRingOrdered", () => Item.ObserveOnRing(messages, checkOrder: true)),
];
foreach (var (name, run) in paths.Where(p => only is null || p.Name == only))
{
    var warm = Stopwatch.StartNew();
    for (var w = 0; warm.Elapsed < TimeSpan.FromSeconds(3) || w < 2; w++)
    {
        run();
    }

    var rates = Enumerable.Range(0, 5).Select(_ => run()).Order().ToArray();
    Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{name} {rates[2] / 1e6:F1} [{rates[0] / 1e6:F1}, {rates[4] / 1e6:F1}]"));
}

double RunRing(int capacity)
{
    using var tally = new Tally(Count);
    var pipe = Pipe.Create<Item>(PipeKind.Ring, tally.Handle, new PipeOptions { Capacity = capacity });
    var watch = Stopwatch.StartNew();
    foreach (var message in messages)
    {
        pipe.Post(message);
    }

    tally.Wait();
    watch.Stop();
    pipe.Complete();
    pipe.DisposeAsync().AsTask().Wait();
    return tally.Check(watch.Elapsed);
}
