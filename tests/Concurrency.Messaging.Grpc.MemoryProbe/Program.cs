using System.Globalization;
using Concurrency.Messaging.Grpc;

// Usage: Concurrency.Messaging.Grpc.MemoryProbe
// Starts a peer server with small options and answers commands on standard input, one a line:
//   measure   a full, compacting collection, then "heap BYTES remembered BYTES handled COUNT"
//   status    "handled COUNT remembered BYTES sessions COUNT idle COUNT", without a collection
//   release   lets every handler waiting on a "slow" request answer (and later ones answer at once)
//   quit      (or the end of input) stops the server
// It first writes "address URL" and "bound BYTES" (PeerMemoryBound.Server of its options). Requests of type "large" are
// answered with LargeReplyBytes each, "slow" ones wait for "release", "yield" ones are echoed after a yield, the rest at once.
const int LargeReplyBytes = (255 * 1024) - 64;
var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
var options = new PeerServerOptions
{
    MaxStreams = 5,
    MaxConnections = 8,
    MaxSessions = 64,
    MaxQueuedBatches = 2,
    MaxMessageBytes = 256 * 1024,
    MaxBatchBytes = 256 * 1024,
    MaxRememberedBytes = 8 * 1024 * 1024,
    Handler = async (request, cancellationToken) =>
    {
        switch (request.Type)
        {
            case "large":
                return new PeerMessage("large", "probe", new byte[LargeReplyBytes]);
            case "yield":
                await Task.Yield(); // answered later, not at once: the stream answers every later batch on its answer loop
                return request;
            case "slow":
                await release.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
                return new PeerMessage("slow", "probe", ReadOnlyMemory<byte>.Empty);
            default:
                return request;
        }
    },
};

await using var server = await PeerServer.StartAsync(options).ConfigureAwait(false);
Console.WriteLine($"address {server.Address}");
Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"bound {PeerMemoryBound.Server(options)}"));
while (Console.ReadLine() is { } command)
{
    switch (command)
    {
        case "measure":
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
            GC.WaitForPendingFinalizers();
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"heap {GC.GetTotalMemory(forceFullCollection: true)} remembered {server.RememberedBytes} handled {server.HandledCount}"));
            break;
        case "status":
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"handled {server.HandledCount} remembered {server.RememberedBytes} sessions {server.SessionCount} idle {server.Sessions.IdleCount}"));
            break;
        case "release":
            release.TrySetResult();
            Console.WriteLine("released");
            break;
        case "quit":
            return 0;
        default:
            Console.Error.WriteLine($"unknown command '{command}'");
            return 2;
    }
}

return 0;
