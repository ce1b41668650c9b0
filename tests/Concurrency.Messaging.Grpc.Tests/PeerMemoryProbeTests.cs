using System.Diagnostics;
using System.Globalization;
using static Concurrency.Messaging.Grpc.Tests.RawStream;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The server's worst-case memory (docs/grpc.md, "Worst-case memory"), proven on the heap: a peer server alone in a
/// process of its own (tests/Concurrency.Messaging.Grpc.MemoryProbe, small options) is driven by raw clients here to the
/// bound of each hostile case in turn, and after each its managed heap, read after a full compacting collection, has
/// grown by no more than the formula of its options (plus an allowance for the runtime's own structures) since the idle
/// server's reading. A <see cref="PeerClient"/> is served beside each case.
/// </summary>
public sealed class PeerMemoryProbeTests
{
    // What the runtime, Kestrel and gRPC keep for themselves once the server has worked (Kestrel's memory pool filled,
    // paths run once, thread-pool threads), beyond the idle server's reading: about 1.2 MB when this was written.
    private const long Allowance = 4L * 1024 * 1024;

    private const int Streams = 4; // the probe's MaxStreams is 5: one stays for the well-behaved client
    private const long RememberedBudget = 8L * 1024 * 1024; // the probe's MaxRememberedBytes

    [Fact]
    public async Task Server_EachHostileCaseDrivenToItsBound_HeapGrowsLessThanTheFormula()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var probe = await MemoryProbe.StartAsync();
        using var raw = new RawPeer(probe.Address);
        await AssertServedAsync(probe.Address, ct); // every path run once before the idle reading
        var idle = await probe.MeasureAsync();
        var output = TestContext.Current.TestOutputHelper;
        output?.WriteLine($"bound {probe.Bound:N0}, idle heap {idle.Heap:N0}");

        // Sessions that never acknowledge, 65 replies of 16 KiB each (a ring of 2 MiB for 1 MiB of replies), until the
        // server's budget for remembered replies is spent: it holds that budget, as allocated, and no more. With no stream
        // open, the formula's other terms are the sessions' objects (64 KiB) and Kestrel's idle buffers (in the allowance).
        for (var session = 0; session < 12; session++)
        {
            using var call = await raw.OpenAsync();
            await WriteAsync(call, Batch(1, 65, "echo", payloadBytes: 16 * 1024));
            await CountRepliesAsync(call, 65);
        }

        await WaitUntilIdleAsync(probe);
        var remembered = await probe.MeasureAsync();
        output?.WriteLine($"remembered: heap +{remembered.Heap - idle.Heap:N0}, remembered {remembered.Remembered:N0}");
        Assert.InRange(remembered.Remembered, RememberedBudget / 2, RememberedBudget);
        Assert.InRange(remembered.Heap - idle.Heap, 0, RememberedBudget + Allowance);
        await AssertServedAsync(probe.Address, ct);

        // Clients that do not read the replies to their batch of 1,024 requests, each answered with 255 KiB (1 GiB in
        // all): each stream holds a few reply batches, and the handler stops.
        var unread = new List<AsyncDuplexStreamingCall<PeerBatch, PeerBatch>>();
        var before = (await probe.StatusAsync()).Handled;
        try
        {
            for (var stream = 0; stream < Streams; stream++)
            {
                var call = await raw.OpenAsync();
                unread.Add(call);
                await WriteAsync(call, Batch(1, 1024, "large"));
            }

            // Each stream makes MaxQueuedBatches + 3 replies (5): queued, being written, waiting for room, and the one after.
            var handled = await WaitForStallAsync(async () => (await probe.StatusAsync()).Handled, before + (Streams * 4));
            var held = await probe.MeasureAsync();
            output?.WriteLine($"unread: heap +{held.Heap - idle.Heap:N0}, handled {handled - before:N0}");
            Assert.InRange(handled - before, Streams * 4, Streams * 16);
            Assert.InRange(held.Heap - idle.Heap, 0, probe.Bound + Allowance);
            await AssertServedAsync(probe.Address, ct);
        }
        finally
        {
            unread.ForEach(call => call.Dispose());
        }

        // Clients flooding batches of 1,000 requests with 4,000-character types (4 MB on the wire, 8 MB as UTF-16) while
        // the handler does not answer: each stream stops reading after MaxQueuedBatches + 2. A connection each: on one,
        // the streams would share its 1 MiB receive window, and the first to stop reading would stop them all.
        await WaitUntilIdleAsync(probe);
        var flood = new List<(RawPeer Connection, AsyncDuplexStreamingCall<PeerBatch, PeerBatch> Call)>();
        using var stopFlood = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var written = 0;
        try
        {
            var writers = new List<Task>();
            for (var stream = 0; stream < Streams; stream++)
            {
                var connection = new RawPeer(probe.Address);
                var call = connection.Exchange();
                flood.Add((connection, call));
                await ReadAsync(call);

                // A first request answered later rather than at once: from then on the stream answers on its loop, and
                // its reader queues what comes next instead of waiting for each answer.
                await WriteAsync(call, Batch(1, 1, "yield"));
                await CountRepliesAsync(call, 1);
                writers.Add(Task.Run(
                    async () =>
                    {
                        for (var batch = 0; batch < 16; batch++)
                        {
                            await call.RequestStream.WriteAsync(Batch(2 + ((ulong)batch * 1000), 1000, new string('s', 4000)), stopFlood.Token);
                            Interlocked.Increment(ref written);
                        }
                    },
                    ct));
            }

            // Each stream takes MaxQueuedBatches + 2 batches (4): answering, queued, and one the reader holds.
            var stalled = await WaitForStallAsync(() => Volatile.Read(ref written), Streams * 3);
            Assert.DoesNotContain(writers, writer => writer.IsCompleted);
            var flooded = await probe.MeasureAsync();
            output?.WriteLine($"flood: heap +{flooded.Heap - idle.Heap:N0}, batches written {stalled}");
            Assert.InRange(stalled, Streams * 3, Streams * 8);
            Assert.InRange(flooded.Heap - idle.Heap, Streams * 2 * 8_000_000L, probe.Bound + Allowance); // held two or more batches a stream
            await AssertServedAsync(probe.Address, ct);
            await stopFlood.CancelAsync();
            await probe.ReleaseAsync();
        }
        finally
        {
            foreach (var (connection, call) in flood)
            {
                call.Dispose();
                connection.Dispose();
            }
        }
    }

    private static async Task AssertServedAsync(Uri address, CancellationToken ct)
    {
        await using var client = await PeerClient.ConnectAsync(address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        var replies = await Task.WhenAll(Enumerable.Range(0, 100).Select(i => client.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();
        Assert.Equal(Enumerable.Range(0, 100).Sum(i => (long)i), replies.Sum(Messages.Number));
    }

    private static PeerBatch Batch(ulong first, int count, string type, int payloadBytes = 0) => RawStream.Requests(first, count, payloadBytes, type);

    // Every stream the cases opened has ended on the server (each session is idle): their resets have reached it.
    private static Task WaitUntilIdleAsync(MemoryProbe probe)
        => TestTimeouts.WaitUntilAsync(async () => await probe.StatusAsync() is var status && status.Idle == status.Sessions, "the streams never ended on the server");

    /// <summary>The probe's process: the server's address and bound, and its commands, each answered within the default timeout.</summary>
    /// <param name="process">The probe's process, which this owns.</param>
    /// <param name="address">The address its server listens on.</param>
    /// <param name="bound">PeerMemoryBound.Server of the probe's options: what the formula says the whole server may hold.</param>
    private sealed class MemoryProbe(Process process, Uri address, long bound) : IAsyncDisposable
    {
        private readonly Process _process = process;

        public Uri Address { get; } = address;

        /// <summary>Gets PeerMemoryBound.Server of the probe's options: what the formula says the whole server may hold.</summary>
        public long Bound { get; } = bound;

        public static async Task<MemoryProbe> StartAsync()
        {
            var start = DotnetHost.Probe("Concurrency.Messaging.Grpc.MemoryProbe.dll");
            start.RedirectStandardInput = true;
            var process = Process.Start(start)!;
            try
            {
                var address = new Uri(Field(await ReadLineAsync(process), "address"));
                var bound = long.Parse(Field(await ReadLineAsync(process), "bound"), CultureInfo.InvariantCulture);
                return new MemoryProbe(process, address, bound);
            }
            catch
            {
                process.Kill(entireProcessTree: true);
                process.Dispose();
                throw;
            }
        }

        public async Task<(long Heap, long Remembered, long Handled)> MeasureAsync()
        {
            var words = await AskAsync("measure");
            return (Number(words, "heap"), Number(words, "remembered"), Number(words, "handled"));
        }

        public async Task<(long Handled, long Sessions, long Idle)> StatusAsync()
        {
            var words = await AskAsync("status");
            return (Number(words, "handled"), Number(words, "sessions"), Number(words, "idle"));
        }

        public async Task ReleaseAsync() => Assert.Equal("released", (await AskAsync("release"))[0]);

        public async ValueTask DisposeAsync()
        {
            try
            {
                if (!_process.HasExited)
                {
                    await _process.StandardInput.WriteLineAsync("quit");
                    await _process.StandardInput.FlushAsync();
                    await _process.WaitForExitAsync(TestContext.Current.CancellationToken).DefaultTimeout();
                }
            }
            finally
            {
                if (!_process.HasExited)
                {
                    _process.Kill(entireProcessTree: true);
                }

                _process.Dispose();
            }
        }

        private static async Task<string> ReadLineAsync(Process process)
            => await process.StandardOutput.ReadLineAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout() ?? throw new InvalidOperationException("The memory probe ended.");

        private static string Field(string line, string name)
        {
            var words = line.Split(' ');
            Assert.Equal(name, words[0]);
            return words[1];
        }

        private static long Number(string[] words, string name) => long.Parse(words[Array.IndexOf(words, name) + 1], CultureInfo.InvariantCulture);

        private async Task<string[]> AskAsync(string command)
        {
            await _process.StandardInput.WriteLineAsync(command);
            await _process.StandardInput.FlushAsync();
            return (await ReadLineAsync(_process)).Split(' ');
        }
    }
}
