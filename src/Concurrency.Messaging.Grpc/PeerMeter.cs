using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The peers' instruments, on a meter named as the core package's (<see cref="Name"/>), so that one name enables the whole
/// library for a listener; the instruments are listed in docs/metrics.md. The core's meter is internal to its package and
/// the two packages may be upgraded apart, so this package makes its own meter under the same name rather than reach in.
/// </summary>
/// <remarks>
/// Nothing costs anything on the hot path while nobody listens: <see cref="Add"/> reads the counter's <c>Enabled</c> and
/// returns, and the gauges are observable, read from the servers' existing counters only when a listener collects.
/// Counts are per batch where the code already counts per batch (a stream write), never an extra pass per message.
/// </remarks>
internal static class PeerMeter
{
    /// <summary>The library's meter name, the same as the core package's.</summary>
    public const string Name = "Concurrency.Messaging";

    /// <summary>The tag that says why the server refused something, on <see cref="ServerRefused"/>.</summary>
    public const string ReasonTag = "reason";

    private static readonly Meter Meter = new(Name, typeof(PeerMeter).Assembly.GetName().Version?.ToString());

    // The servers running now, for the gauges; each leaves when it is disposed (held weakly all the same).
    private static readonly ConditionalWeakTable<PeerServerState, object?> Servers = [];

    public static Counter<long> ClientMessagesSent { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.client.messages.sent", "{message}", "Messages a PeerClient wrote to its stream, resends included.");

    public static Counter<long> ClientMessagesReceived { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.client.messages.received", "{message}", "Replies a PeerClient read.");

    public static Counter<long> ClientBatchesSent { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.client.batches.sent", "{batch}", "Stream writes of a PeerClient, heartbeats included.");

    public static Counter<long> ClientResends { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.client.resends", "{message}", "Messages written again on a new stream because the old one broke before their reply.");

    public static Counter<long> ClientReconnects { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.client.reconnects", "{stream}", "Broken streams a PeerClient replaced with a new one.");

    public static Counter<long> ClientHalfOpen { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.client.half_open", "{stream}", "Streams a PeerClient dropped as half-open: nothing read for its read-idle timeout.");

    public static Counter<long> ClientTimeouts { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.client.timeouts", "{message}", "Sends that failed with no reply within the delivery timeout.");

    public static Counter<long> ServerMessagesReceived { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.server.messages.received", "{message}", "Requests a PeerServer read, resends included.");

    public static Counter<long> ServerMessagesSent { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.server.messages.sent", "{message}", "Replies a PeerServer wrote.");

    public static Counter<long> ServerBatchesReceived { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.server.batches.received", "{batch}", "Batches a PeerServer read, heartbeats included.");

    public static Counter<long> ServerBatchesSent { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.server.batches.sent", "{batch}", "Stream writes of a PeerServer, heartbeats included.");

    public static Counter<long> ServerResends { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.server.resends", "{message}", "Requests that arrived again after a reconnect, answered from memory instead of handled twice.");

    public static Counter<long> ServerRefused { get; } = Meter.CreateCounter<long>(
        "concurrency.peer.server.refused", "{refusal}", "Streams, batches and requests a PeerServer refused, by reason (tag 'reason').");

    public static ObservableUpDownCounter<long> ServerSessions { get; } = Meter.CreateObservableUpDownCounter(
        "concurrency.peer.server.sessions", () => Sum(static state => state.Sessions.Count), "{session}", "Client sessions the servers remember.");

    public static ObservableUpDownCounter<long> ServerStreams { get; } = Meter.CreateObservableUpDownCounter(
        "concurrency.peer.server.streams", () => Sum(static state => state.Streams), "{stream}", "Streams the servers have open.");

    public static ObservableUpDownCounter<long> ServerRememberedBytes { get; } = Meter.CreateObservableUpDownCounter(
        "concurrency.peer.server.remembered.size", () => Sum(static state => state.RememberedBytes), "By", "Bytes of replies the servers remember for resends.");

    /// <summary>Counts a running server in for the gauges.</summary>
    public static void Register(PeerServerState state) => Servers.TryAdd(state, null);

    /// <summary>Counts a stopped server out.</summary>
    public static void Unregister(PeerServerState state) => Servers.Remove(state);

    /// <summary>Adds <paramref name="count"/> to <paramref name="counter"/> if a listener is enabled on it; a field read otherwise.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Add(Counter<long> counter, long count)
    {
        if (counter.Enabled)
        {
            counter.Add(count);
        }
    }

    /// <summary>Counts one refusal with its reason, if a listener is enabled on <see cref="ServerRefused"/>.</summary>
    public static void Refused(string reason)
    {
        if (ServerRefused.Enabled)
        {
            ServerRefused.Add(1, new KeyValuePair<string, object?>(ReasonTag, reason));
        }
    }

    private static long Sum(Func<PeerServerState, long> read)
    {
        long sum = 0;
        foreach (var (state, _) in Servers)
        {
            sum += read(state);
        }

        return sum;
    }
}
