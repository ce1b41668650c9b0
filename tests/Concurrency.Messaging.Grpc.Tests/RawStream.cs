using Google.Protobuf;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The raw side of the peer protocol, for tests that play a client the library would never be: request batches numbered
/// as the test chooses, writes and reads bounded by the test timeout, and the stall wait those tests share. Streams are
/// opened by <see cref="RawPeer"/>. Used with <c>using static</c>.
/// </summary>
internal static class RawStream
{
    /// <summary>The header that carries a stream's session id, both ways.</summary>
    public const string SessionHeader = "concurrency-peer-session";

    /// <summary>A batch of <paramref name="count"/> requests numbered from <paramref name="first"/>, each with a payload of zeros.</summary>
    public static PeerBatch Requests(ulong first, int count, int payloadBytes = 8, string type = "abuse")
    {
        var batch = new PeerBatch();
        var payload = ByteString.CopyFrom(new byte[payloadBytes]);
        for (var i = 0; i < count; i++)
        {
            batch.Envelopes.Add(new Envelope { Sequence = first + (ulong)i, Type = type, Source = "raw", Payload = payload });
        }

        return batch;
    }

    /// <summary>Writes <paramref name="batch"/> on the stream, within the test timeout.</summary>
    public static Task WriteAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call, PeerBatch batch)
        => call.RequestStream.WriteAsync(batch, TestContext.Current.CancellationToken).DefaultTimeout();

    /// <summary>The session id the server gave the stream, from its response headers.</summary>
    public static async Task<string> SessionOfAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call)
        => (await call.ResponseHeadersAsync.DefaultTimeout()).GetValue(SessionHeader)!;

    /// <summary>The next batch the server writes; fails the test if the server ended the stream.</summary>
    public static async Task<PeerBatch> ReadAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call)
    {
        Assert.True(await call.ResponseStream.MoveNext(TestContext.Current.CancellationToken).DefaultTimeout(), "the server ended the stream");
        return call.ResponseStream.Current;
    }

    /// <summary>Reads batches until <paramref name="count"/> replies came (heartbeats skipped); returns how many.</summary>
    public static async Task<int> CountRepliesAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call, int count)
    {
        var replies = 0;
        while (replies < count)
        {
            replies += (await ReadAsync(call)).Envelopes.Count;
        }

        return replies;
    }

    /// <summary>
    /// Returns once <paramref name="counter"/> reached at least <paramref name="floor"/> (what the case makes however slow
    /// the machine) and then did not move for a second: what it counts is held back. Fails if it never stalls, or if
    /// <paramref name="writer"/>, the flood the counter counts, finished: it was never held back.
    /// </summary>
    public static async Task<long> WaitForStallAsync(Func<ValueTask<long>> counter, long floor = 0, Task? writer = null)
    {
        var deadline = DateTime.UtcNow + TestTimeouts.Default;
        var last = -1L;
        var since = DateTime.UtcNow;
        while (true)
        {
            Assert.False(writer?.IsCompleted == true, "the flood was never held back: it wrote every batch");
            Assert.True(DateTime.UtcNow < deadline, "it never stalled");
            var now = await counter();
            if (now != last)
            {
                (last, since) = (now, DateTime.UtcNow);
            }
            else if (now >= floor && DateTime.UtcNow - since > TimeSpan.FromSeconds(1))
            {
                return now;
            }

            await Task.Delay(20, TestContext.Current.CancellationToken);
        }
    }

    /// <inheritdoc cref="WaitForStallAsync(Func{ValueTask{long}}, long, Task?)"/>
    public static Task<long> WaitForStallAsync(Func<int> counter, int floor = 0, Task? writer = null)
        => WaitForStallAsync(() => ValueTask.FromResult((long)counter()), floor, writer);
}
