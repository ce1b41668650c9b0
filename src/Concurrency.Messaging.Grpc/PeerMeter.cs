using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The peers' meter name, the attribute names both sides share, and the client's instruments, on a static meter: a
/// <see cref="PeerClient"/> is made without a container, so it has no <see cref="IMeterFactory"/> to ask. A server's
/// instruments are its own (<see cref="PeerServerMeter"/>), on the meter its app's <see cref="IMeterFactory"/> makes.
/// Names and attributes follow the OpenTelemetry semantic conventions named in docs/metrics.md, which lists them.
/// </summary>
/// <remarks>
/// Nothing costs anything on the hot path while nobody listens: <see cref="Add"/> reads the counter's <c>Enabled</c> and
/// returns, and a send is timed only while the duration histogram is enabled. Counts are per batch where the code
/// already counts per batch (a stream write), never an extra pass per message.
/// </remarks>
internal static class PeerMeter
{
    /// <summary>The library's meter name, the same as the core package's, so that one name enables the whole library.</summary>
    public const string Name = "Concurrency.Messaging";

    /// <summary>Why an operation failed (semantic conventions' <c>error.type</c>): a refusal's reason, a send's failure.</summary>
    public const string ErrorTypeTag = "error.type";

    /// <summary>The tag that tells two servers in one process apart: <see cref="PeerServerOptions.Name"/>.</summary>
    public const string ServerNameTag = "concurrency.peer.server.name";

    /// <summary>The RPC system (semantic conventions' <c>rpc.system.name</c>).</summary>
    public const string RpcSystemTag = "rpc.system.name";

    /// <summary>The fully qualified method (semantic conventions' <c>rpc.method</c>), the stream every message rides on.</summary>
    public const string RpcMethodTag = "rpc.method";

    /// <summary>The value of <see cref="RpcMethodTag"/>, and the name of the peers' spans: peer.proto's package, service and method.</summary>
    public const string RpcMethod = "concurrency.messaging.grpc.Peer/Exchange";

    /// <summary>The <see cref="ErrorTypeTag"/> of a send or a request that was cancelled before its outcome.</summary>
    public const string Cancelled = "cancelled";

    /// <summary>The <see cref="ErrorTypeTag"/> of a request whose answer is a failure (handler threw, request or reply too large).</summary>
    public const string Failed = "failed";

    /// <summary>The duration histograms' bucket boundaries, in seconds: a loopback reply takes well under a millisecond.</summary>
    private static readonly IReadOnlyList<double> DurationBuckets =
        [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

    private static readonly Meter Meter = new(Name, typeof(PeerMeter).Assembly.GetName().Version?.ToString());

    public static Counter<long> ClientMessagesSent { get; } = Meter.CreateCounter<long>("concurrency.peer.client.messages.sent", "{message}", "Messages a PeerClient wrote to its stream, resends included.");

    public static Counter<long> ClientMessagesReceived { get; } = Meter.CreateCounter<long>("concurrency.peer.client.messages.received", "{message}", "Replies a PeerClient read.");

    public static Counter<long> ClientBatchesSent { get; } = Meter.CreateCounter<long>("concurrency.peer.client.batches.sent", "{batch}", "Stream writes of a PeerClient, heartbeats included.");

    public static Counter<long> ClientResends { get; } = Meter.CreateCounter<long>("concurrency.peer.client.resends", "{message}", "Messages written again on a new stream because the old one broke before their reply.");

    public static Counter<long> ClientReconnects { get; } = Meter.CreateCounter<long>("concurrency.peer.client.reconnects", "{stream}", "Broken streams a PeerClient replaced with a new one.");

    public static Counter<long> ClientHalfOpen { get; } = Meter.CreateCounter<long>("concurrency.peer.client.half_open", "{stream}", "Streams a PeerClient dropped as half-open: nothing read for its read-idle timeout.");

    public static Counter<long> ClientTimeouts { get; } = Meter.CreateCounter<long>("concurrency.peer.client.timeouts", "{message}", "Sends that failed with no reply within the delivery timeout.");

    public static Histogram<double> ClientSendDuration { get; } = CreateDuration(
        Meter, "concurrency.peer.client.send.duration", "From a PeerClient's SendAsync to the send's outcome: its reply, or error.type.");

    /// <summary>Adds <paramref name="count"/> to <paramref name="counter"/> if a listener is enabled on it; a field read otherwise.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Add(Counter<long> counter, long count)
    {
        if (counter.Enabled)
        {
            counter.Add(count);
        }
    }

    /// <summary>The timestamp a send's duration starts from, or 0 while nobody listens to <see cref="ClientSendDuration"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long StartSend() => ClientSendDuration.Enabled ? Stopwatch.GetTimestamp() : 0;

    /// <summary>Records a send's duration from <paramref name="started"/> (<see cref="StartSend"/>), tagged with its outcome.</summary>
    public static void EndSend(long started, Uri? address, Exception? error, bool cancelled)
    {
        if (started == 0 || !ClientSendDuration.Enabled)
        {
            return;
        }

        var tags = default(TagList);
        if (address is not null)
        {
            tags.Add("server.address", address.Host);
            tags.Add("server.port", address.Port);
        }

        RecordDuration(ClientSendDuration, started, tags, ErrorType(error, cancelled));
    }

    /// <summary>Makes a duration histogram in seconds, with <see cref="DurationBuckets"/>: a client's sends, a server's requests.</summary>
    public static Histogram<double> CreateDuration(Meter meter, string name, string description) => meter.CreateHistogram(
        name, "s", description, advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = DurationBuckets });

    /// <summary>
    /// Records a call's duration from <paramref name="started"/>, tagged with the side's own <paramref name="tags"/>, the RPC
    /// tags both sides give, and <paramref name="errorType"/> as <see cref="ErrorTypeTag"/> unless the call succeeded (null).
    /// </summary>
    public static void RecordDuration(Histogram<double> duration, long started, TagList tags, string? errorType)
    {
        tags.Add(RpcSystemTag, "grpc");
        tags.Add(RpcMethodTag, RpcMethod);
        if (errorType is not null)
        {
            tags.Add(ErrorTypeTag, errorType);
        }

        duration.Record(Stopwatch.GetElapsedTime(started).TotalSeconds, tags);
    }

    /// <summary>
    /// A send's <see cref="ErrorTypeTag"/>: <see cref="Cancelled"/>; a <see cref="PeerDeliveryException"/>'s reason in snake
    /// case (<c>timeout</c>, <c>closed</c>...); <c>remote</c> for a request the server failed; else the exception's type.
    /// Null when the send succeeded.
    /// </summary>
    public static string? ErrorType(Exception? error, bool cancelled) => error switch
    {
        null => cancelled ? Cancelled : null,
        PeerDeliveryException delivery => Snake(delivery.Reason),
        PeerRemoteException => "remote",
        _ => error.GetType().FullName,
    };

    private static string Snake(PeerDeliveryFailure reason) => reason switch
    {
        PeerDeliveryFailure.Timeout => "timeout",
        PeerDeliveryFailure.ResendsExhausted => "resends_exhausted",
        PeerDeliveryFailure.Unauthenticated => "unauthenticated",
        PeerDeliveryFailure.Unsupported => "unsupported",
        PeerDeliveryFailure.Closed => "closed",
        PeerDeliveryFailure.Forgotten => "forgotten",
        PeerDeliveryFailure.UntrustedCertificate => "untrusted_certificate",
        PeerDeliveryFailure.Refused => "refused",
        _ => "_OTHER",
    };
}
