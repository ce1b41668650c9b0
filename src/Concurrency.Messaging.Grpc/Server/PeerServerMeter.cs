using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One server's instruments, on the meter its app's <see cref="IMeterFactory"/> made (so that each app's instruments are
/// its own and go when its container does), every measurement tagged with the server's name
/// (<see cref="PeerMeter.ServerNameTag"/>): two servers in one process, or two apps exporting under the same meter name,
/// stay apart. The gauges read the server's own counters when a listener collects, one measurement for this server.
/// </summary>
/// <remarks>Immutable after construction; its instruments are thread-safe, so any stream's thread records on them.</remarks>
internal sealed class PeerServerMeter
{
    // Numbers the servers made without a name, process-wide, so that two unnamed servers still differ.
    private static int s_unnamed;

    private readonly KeyValuePair<string, object?> _server;

    public PeerServerMeter(Meter meter, string? name, PeerServerState state)
    {
        Debug.Assert(meter.Name == PeerMeter.Name, "A listener enables the library by one meter name.");
        ServerName = name ?? $"peer-server-{Interlocked.Increment(ref s_unnamed)}";
        _server = new(PeerMeter.ServerNameTag, ServerName);
        MessagesReceived = meter.CreateCounter<long>("concurrency.peer.server.messages.received", "{message}", "Requests a PeerServer read, resends included.");
        MessagesSent = meter.CreateCounter<long>("concurrency.peer.server.messages.sent", "{message}", "Replies a PeerServer wrote.");
        BatchesReceived = meter.CreateCounter<long>("concurrency.peer.server.batches.received", "{batch}", "Batches a PeerServer read, heartbeats included.");
        BatchesSent = meter.CreateCounter<long>("concurrency.peer.server.batches.sent", "{batch}", "Stream writes of a PeerServer, heartbeats included.");
        Resends = meter.CreateCounter<long>("concurrency.peer.server.resends", "{message}", "Requests that arrived again after a reconnect, answered from memory instead of handled twice.");
        Refusals = meter.CreateCounter<long>("concurrency.peer.server.refused", "{refusal}", "Streams, batches and requests a PeerServer refused, by reason (error.type).");
        RequestDuration = PeerMeter.CreateDuration(
            meter, "concurrency.peer.server.request.duration", "From a PeerServer's call of its handler to the request's answer (error.type when it failed or was cancelled).");
        meter.CreateObservableUpDownCounter(
            "concurrency.peer.server.session.count", () => new Measurement<long>(state.Sessions.Count, _server), "{session}", "Client sessions the server remembers.");
        meter.CreateObservableUpDownCounter(
            "concurrency.peer.server.stream.count", () => new Measurement<long>(state.Streams, _server), "{stream}", "Streams the server has open.");
        meter.CreateObservableUpDownCounter(
            "concurrency.peer.server.remembered.size", () => new Measurement<long>(state.RememberedBytes, _server), "By", "Bytes of replies the server remembers for resends.");
    }

    /// <summary>Gets the value of this server's <see cref="PeerMeter.ServerNameTag"/>.</summary>
    public string ServerName { get; }

    public Counter<long> MessagesReceived { get; }

    public Counter<long> MessagesSent { get; }

    public Counter<long> BatchesReceived { get; }

    public Counter<long> BatchesSent { get; }

    public Counter<long> Resends { get; }

    public Counter<long> Refusals { get; }

    public Histogram<double> RequestDuration { get; }

    /// <summary>Counts a batch read, with its requests.</summary>
    public void Received(int requests)
    {
        Add(BatchesReceived, 1);
        Add(MessagesReceived, requests);
    }

    /// <summary>Counts a batch written, with its replies.</summary>
    public void Sent(int replies)
    {
        Add(BatchesSent, 1);
        Add(MessagesSent, replies);
    }

    /// <summary>Counts one request answered from memory.</summary>
    public void Resent() => Add(Resends, 1);

    /// <summary>Counts one refusal with its reason as <see cref="PeerMeter.ErrorTypeTag"/>.</summary>
    public void Refused(string reason)
    {
        if (Refusals.Enabled)
        {
            Refusals.Add(1, _server, new(PeerMeter.ErrorTypeTag, reason));
        }
    }

    /// <summary>The timestamp a request's duration starts from, or 0 while nobody listens to <see cref="RequestDuration"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long StartRequest() => RequestDuration.Enabled ? Stopwatch.GetTimestamp() : 0;

    /// <summary>Records a request's duration from <paramref name="started"/> (<see cref="StartRequest"/>); <paramref name="errorType"/> null when it succeeded.</summary>
    public void EndRequest(long started, string? errorType)
    {
        if (started == 0 || !RequestDuration.Enabled)
        {
            return;
        }

        PeerMeter.RecordDuration(RequestDuration, started, new TagList { _server }, errorType);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Add(Counter<long> counter, long count)
    {
        if (counter.Enabled)
        {
            counter.Add(count, _server);
        }
    }
}
