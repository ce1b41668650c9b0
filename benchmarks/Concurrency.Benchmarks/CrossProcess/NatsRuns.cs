using System.Buffers.Binary;
using System.Threading.Channels;
using NATS.Client.Core;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// NATS request/reply, the messaging a user reaches for across machines: a subscriber on its own connection echoes every
/// request's payload, and N senders on another connection each await their request's reply, one after another. Every
/// message carries its number in its first 8 bytes; the run counts the replies and sums their numbers.
/// </summary>
internal static class NatsRuns
{
    private const string Subject = "bench.echo";

    // A request outlives the default timeout only if something is wrong; a slow loaded machine is not that.
    private static readonly NatsSubOpts ReplyOptions = new() { Timeout = TimeSpan.FromMinutes(1) };
    private static readonly TimeSpan StopLimit = TimeSpan.FromSeconds(30);

    /// <summary>Runs <paramref name="messages"/> round trips of <paramref name="payloadBytes"/> bytes from <paramref name="senders"/> concurrent senders.</summary>
    public static async Task<PeerRunResult> RequestReplyAsync(string url, int senders, int payloadBytes, int messages, CancellationToken cancellation)
    {
        // The echo's pending requests wait rather than being dropped (NATS's default when a subscriber falls behind).
        await using var responder = new NatsConnection(NatsOpts.Default with { Url = url, Name = "echo", SubPendingChannelFullMode = BoundedChannelFullMode.Wait });
        await using var requester = new NatsConnection(NatsOpts.Default with { Url = url, Name = "bench" });
        var subscription = await responder.SubscribeCoreAsync<byte[]>(Subject, cancellationToken: cancellation).ConfigureAwait(false);
        var echo = Task.Run(
            async () =>
            {
                await foreach (var request in subscription.Msgs.ReadAllAsync(cancellation).ConfigureAwait(false))
                {
                    await request.ReplyAsync(request.Data, cancellationToken: cancellation).ConfigureAwait(false);
                }
            },
            cancellation);

        // A round trip through the server on each connection: the subscription is in place before the first request.
        await responder.PingAsync(cancellation).ConfigureAwait(false);
        await requester.PingAsync(cancellation).ConfigureAwait(false);
        try
        {
            // NATS.Net copies the payload into its write buffer before the request returns.
            return await PeerRuns.SendersAsync(
                $"NATS request/reply, {senders} senders",
                senders,
                messages,
                payloadBytes,
                payload => requester.RequestAsync<byte[], byte[]>(Subject, payload, replyOpts: ReplyOptions, cancellationToken: cancellation),
                static reply => reply.Data is { Length: >= sizeof(long) } data ? BinaryPrimitives.ReadInt64LittleEndian(data) : -1,
                cancellation).ConfigureAwait(false);
        }
        finally
        {
            await subscription.DisposeAsync().ConfigureAwait(false);
            await echo.WaitAsync(StopLimit, CancellationToken.None).ConfigureAwait(false);
        }
    }
}
