using System.Buffers.Binary;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>Messages that carry a number, so a test can sum what came back and compare with what was sent.</summary>
internal static class Messages
{
    public static PeerMessage Numbered(long number, string type = "number")
    {
        var payload = new byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(payload, number);
        return new PeerMessage(type, "test", payload);
    }

    /// <summary>Every way the client can run (<see cref="PeerMode"/>): a promise every mode keeps is tested in each.</summary>
    public static TheoryData<PeerMode> EveryMode => [.. Enum.GetValues<PeerMode>()];

    public static long Number(PeerMessage message) => BinaryPrimitives.ReadInt64LittleEndian(message.Payload.Span);

    /// <summary>Short timings so that reconnects, heartbeats and deadlines happen within a test's budget.</summary>
    public static PeerClientOptions Quick(PeerMode mode = PeerMode.Async) => new()
    {
        Mode = mode,
        ConnectTimeout = TimeSpan.FromSeconds(2),
        ReconnectDelay = TimeSpan.FromMilliseconds(20),
        MaxReconnectDelay = TimeSpan.FromMilliseconds(200),
        HeartbeatInterval = TimeSpan.FromMilliseconds(200),
        ReadIdleTimeout = TimeSpan.FromMilliseconds(1000),
        DeliveryTimeout = TimeSpan.FromSeconds(20),
        MaxResends = 50,
    };

    /// <summary>
    /// <see cref="Quick"/> with a connect timeout and a read-idle timeout that a loaded machine's stalls (seconds on a busy
    /// CI host, where the test's client and server share the starved thread pool; a first stream was seen taking over 2 s)
    /// cannot reach: for tests that assert no reconnect at all, so that a failure they see comes from a real break, never
    /// from a handshake or a heartbeat read late.
    /// </summary>
    public static PeerClientOptions Steady(PeerMode mode = PeerMode.Async) => Quick(mode) with
    {
        ConnectTimeout = TimeSpan.FromSeconds(10),
        HeartbeatInterval = TimeSpan.FromSeconds(2),
        ReadIdleTimeout = TimeSpan.FromSeconds(30),
    };
}
