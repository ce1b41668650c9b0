// Issue 43's program: in one warm process, each run builds a fresh path with default options, posts 10,000,000 longs
// in a for loop, completes it, waits for completion and checks the sum; one warm-up run, then the median of five, with
// the process's CPU time per message. One path per process, as a user's program has.
using System.Diagnostics;
using System.Globalization;
using System.Threading.Tasks.Dataflow;
using Concurrency.Messaging.Pipes;

const int Messages = 10_000_000;
const long Expected = (long)Messages * (Messages - 1) / 2;
var kind = args.Length > 0 ? args[0] : "Ring";
if (kind == "GateCost")
{
    GateCost();
    return;
}

if (kind == "IdleMemory")
{
    await IdleMemory(args.Length > 1 ? args[1] : "Ring");
    return;
}

// BURST_DIAG=1: after each burst, what the process allocated and collected, and (with takes-counters.patch applied to
// the library) how often the batch-drain queue's consumer took and how much.
var diag = Environment.GetEnvironmentVariable("BURST_DIAG") == "1";
var takeCounters = typeof(PipeKind).Assembly.GetType("Concurrency.Messaging.Pipes.TakeCounters")?.GetMethod("Read");
var rates = new List<double>();
var cpus = new List<double>();
for (var run = 0; run < 6; run++)
{
    var cpu = Process.GetCurrentProcess().TotalProcessorTime;
    var watch = Stopwatch.StartNew();
    var sum = kind == "ActionBlock" ? await ActionBlockBurst() : await PipeBurst(kind);
    watch.Stop();
    var used = Process.GetCurrentProcess().TotalProcessorTime - cpu;
    if (diag)
    {
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"  burst {run}: {Messages / watch.Elapsed.TotalSeconds / 1e6:0} M msg/s; allocated so far {GC.GetTotalAllocatedBytes() / 1e6:0} MB; collections gen0/1/2 {GC.CollectionCount(0)}/{GC.CollectionCount(1)}/{GC.CollectionCount(2)}; {takeCounters?.Invoke(null, null) ?? "(no take counters)"}"));
    }

    if (sum != Expected)
    {
        throw new InvalidOperationException($"{kind}: sum {sum}, expected {Expected}.");
    }

    if (run > 0)
    {
        rates.Add(Messages / watch.Elapsed.TotalSeconds);
        cpus.Add(used.TotalNanoseconds / Messages);
    }
}

rates.Sort();
cpus.Sort();
Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
    $"{kind}: {rates[2] / 1e6:0.0} M msg/s (runs {string.Join(", ", rates.Select(r => (r / 1e6).ToString("0", CultureInfo.InvariantCulture)))}), {cpus[2]:0.0} CPU ns/msg"));

static async Task<long> ActionBlockBurst()
{
    long sum = 0;
    var block = new ActionBlock<long>(m => sum += m, new ExecutionDataflowBlockOptions { SingleProducerConstrained = true });
    for (long i = 0; i < Messages; i++)
    {
        block.Post(i);
    }

    block.Complete();
    await block.Completion;
    return sum;
}

static async Task<long> PipeBurst(string kind)
{
    long sum = 0;
    var (pipeKind, options) = kind switch
    {
        "Ring" => (PipeKind.Ring, new PipeOptions()),
        "Ring16" => (PipeKind.Ring, new PipeOptions { Capacity = 16 }),
        "BatchDrainQueue" => (PipeKind.BatchDrainQueue, new PipeOptions()),
        "RingPool" => (PipeKind.Ring, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        "BatchDrainQueuePool" => (PipeKind.BatchDrainQueue, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        _ => throw new ArgumentException($"Unknown kind {kind}.", nameof(kind)),
    };
    await using var pipe = Pipe.Create<long>(pipeKind, m => sum += m, options);
    for (long i = 0; i < Messages; i++)
    {
        pipe.Post(i);
    }

    pipe.Complete();
    await pipe.Completion;
    return sum;
}

// What the batch-drain queue's lock costs a post with no other thread near it: the gate's compare-and-swap in and release
// store out around an append, against the same append behind a plain store (safe only on one thread, as here).
static void GateCost()
{
    var gate = new int[32];
    var slots = new long[1 << 20];
    const int Mask = (1 << 20) - 1;
    for (var round = 0; round < 5; round++)
    {
        var watch = Stopwatch.StartNew();
        for (long i = 0; i < Messages; i++)
        {
            if (Interlocked.CompareExchange(ref gate[8], 1, 0) != 0)
            {
                throw new InvalidOperationException("Nothing else holds the gate.");
            }

            slots[i & Mask] = i;
            Volatile.Write(ref gate[16], gate[16] + 1);
            Volatile.Write(ref gate[8], 0);
        }

        var atomic = watch.Elapsed.TotalNanoseconds / Messages;
        watch.Restart();
        for (long i = 0; i < Messages; i++)
        {
            gate[8] = 1;
            slots[i & Mask] = i;
            Volatile.Write(ref gate[16], gate[16] + 1);
            Volatile.Write(ref gate[8], 0);
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"append behind a compare-and-swap {atomic:0.00} ns, behind a plain store {watch.Elapsed.TotalNanoseconds / Messages:0.00} ns"));
    }
}

// The memory of an idle pipe: 100 pipes of a kind, each handed one message and left idle; the managed heap after a full
// collection, before and after, per pipe (a dedicated consumer's thread stack is native memory and not counted).
static async Task IdleMemory(string kind)
{
    const int Pipes = 100;
    var (pipeKind, options) = kind switch
    {
        "Ring" => (PipeKind.Ring, new PipeOptions()),
        "BatchDrainQueue" => (PipeKind.BatchDrainQueue, new PipeOptions()),
        "RingPool" => (PipeKind.Ring, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        "BatchDrainQueuePool" => (PipeKind.BatchDrainQueue, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        _ => throw new ArgumentException($"Unknown kind {kind}.", nameof(kind)),
    };
    var handled = 0;
    var before = GC.GetTotalMemory(forceFullCollection: true);
    var pipes = new IPipe<long>[Pipes];
    for (var i = 0; i < Pipes; i++)
    {
        pipes[i] = Pipe.Create<long>(pipeKind, m => Interlocked.Increment(ref handled), options);
        pipes[i].Post(i);
    }

    var waited = Stopwatch.StartNew();
    while (Volatile.Read(ref handled) < Pipes)
    {
        if (waited.Elapsed > TimeSpan.FromSeconds(10))
        {
            throw new TimeoutException($"{handled} of {Pipes} messages handled in 10 s.");
        }

        await Task.Delay(10);
    }

    await Task.Delay(1000); // every consumer goes idle (parks, or ends its turn)
    var after = GC.GetTotalMemory(forceFullCollection: true);
    Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{kind}: {(after - before) / Pipes:N0} managed bytes per idle pipe"));
    foreach (var pipe in pipes)
    {
        pipe.Complete();
        await pipe.Completion;
        await pipe.DisposeAsync();
    }
}
