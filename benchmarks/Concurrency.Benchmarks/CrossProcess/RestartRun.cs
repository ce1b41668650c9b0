using System.Buffers.Binary;
using System.Diagnostics;
using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// The restart run: our pump in async mode keeps sending while the peer process is killed (as a crash would) and started
/// again on the same port, several times. Every caller must still get its own reply exactly once: the run counts the
/// replies and sums their numbers, and throws unless nothing was lost.
/// </summary>
internal static class RestartRun
{
    public static RestartResult Run(int restarts, int senders, int messages, CancellationToken cancellation)
    {
        var url = $"http://127.0.0.1:{LoopbackPorts.Free()}";
        var peer = PeerProcess.Start(url);
        try
        {
            var options = new PeerClientOptions { DeliveryTimeout = TimeSpan.FromMinutes(2), MaxResends = 20 };
            var client = PeerClient.ConnectAsync(url, options, cancellation).GetAwaiter().GetResult();
            try
            {
                var answered = 0L;
                var start = Stopwatch.GetTimestamp();
                var sending = SendAllAsync(client, senders, messages, () => Interlocked.Increment(ref answered), cancellation);
                for (var restart = 1; restart <= restarts; restart++)
                {
                    // Kill when the next share of the messages has been answered, so each crash lands mid-stream.
                    var due = (long)messages * restart / (restarts + 1);
                    SpinWait.SpinUntil(() => Interlocked.Read(ref answered) >= due || sending.IsCompleted, TimeSpan.FromMinutes(2));
                    peer.Kill();
                    peer.Dispose();
                    peer = PeerProcess.Start(url);
                }

                var sum = sending.WaitAsync(TimeSpan.FromMinutes(5), cancellation).GetAwaiter().GetResult();
                var elapsed = Stopwatch.GetElapsedTime(start);
                var expected = (long)messages * (messages - 1) / 2;
                var lost = messages - Interlocked.Read(ref answered);
                if (lost != 0 || sum != expected)
                {
                    throw new LabVerificationException($"restart run: {lost:N0} of {messages:N0} messages got no reply; the replies summed to {sum:N0}, expected {expected:N0}.");
                }

                return new RestartResult(restarts, messages, lost, client.ReconnectCount, client.ResentCount, messages / elapsed.TotalSeconds);
            }
            finally
            {
                client.DisposeAsync().AsTask().GetAwaiter().GetResult();
            }
        }
        finally
        {
            peer.Dispose();
        }
    }

    private static async Task<long> SendAllAsync(PeerClient client, int senders, int messages, Action answered, CancellationToken cancellation)
    {
        var perSender = messages / senders;
        var sums = await Task.WhenAll(Enumerable.Range(0, senders).Select(sender => Task.Run(
            async () =>
            {
                var payload = new byte[64];
                long sum = 0;
                for (var k = 0; k < perSender; k++)
                {
                    BinaryPrimitives.WriteInt64LittleEndian(payload, sender + ((long)k * senders));
                    var reply = await client.SendAsync(new PeerMessage("echo", "restart", payload), cancellation).ConfigureAwait(false);
                    sum += BinaryPrimitives.ReadInt64LittleEndian(reply.Payload.Span);
                    answered();
                }

                return sum;
            },
            cancellation))).ConfigureAwait(false);
        return sums.Sum();
    }
}

/// <summary>What the restart run saw: restarts survived, messages sent and lost (must be 0), reconnects, resends, and msg/s through the crashes.</summary>
internal readonly record struct RestartResult(int Restarts, int Messages, long Lost, long Reconnects, long Resent, double MessagesPerSecond);
