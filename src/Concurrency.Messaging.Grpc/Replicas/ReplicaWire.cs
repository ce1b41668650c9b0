using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The replicas' messages, carried as <see cref="PeerMessage"/>s over the peers' stream: the type says what, the payload is
/// fixed little-endian fields. Clients send <c>next</c> (their floor: the largest identity they hold) and get <c>id</c>;
/// send <c>update</c> (a value) and get <c>updated</c>; replicas send each other <c>sync</c> (their id, their instance and
/// their counter) and get the same fields of the peer back, or <c>refused</c> (the refusing replica's in-use window, and
/// why) when the id is in use. Anything a replica
/// cannot answer gets <c>error</c> with a reason in UTF-8.
/// </summary>
internal static class ReplicaWire
{
    public const string Next = "next";
    public const string Identity = "id";
    public const string Update = "update";
    public const string Updated = "updated";
    public const string Sync = "sync";
    public const string Refused = "refused";
    public const string Error = "error";

    public const int SyncBytes = 2 + 8 + 8;

    /// <summary>The exchange's fields and, with a cluster key, their HMAC-SHA256 under it.</summary>
    public const int SignedSyncBytes = SyncBytes + HMACSHA256.HashSizeInBytes;

    public static byte[] Int64(long value)
    {
        var bytes = new byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, value);
        return bytes;
    }

    public static bool TryInt64(ReadOnlyMemory<byte> payload, out long value)
    {
        if (payload.Length != 8)
        {
            value = 0;
            return false;
        }

        value = BinaryPrimitives.ReadInt64LittleEndian(payload.Span);
        return true;
    }

    /// <summary>An exchange's payload: the fields, signed when the cluster has a key.</summary>
    public static byte[] SyncPayload(int replica, long instance, long counter, byte[]? key)
    {
        var bytes = new byte[key is null ? SyncBytes : SignedSyncBytes];
        BinaryPrimitives.WriteUInt16LittleEndian(bytes, (ushort)replica);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(2), instance);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(10), counter);
        if (key is not null)
        {
            HMACSHA256.HashData(key, bytes.AsSpan(0, SyncBytes), bytes.AsSpan(SyncBytes));
        }

        return bytes;
    }

    /// <summary>
    /// Reads an exchange's fields; with a cluster key, only from a payload signed under it (a client holding the peers'
    /// token but not the key cannot pose as a replica).
    /// </summary>
    public static bool TrySync(ReadOnlyMemory<byte> payload, byte[]? key, out int replica, out long instance, out long counter)
    {
        var span = payload.Span;
        (replica, instance, counter) = (0, 0, 0);
        if (key is null ? span.Length is not (SyncBytes or SignedSyncBytes) : span.Length != SignedSyncBytes)
        {
            return false;
        }

        if (key is not null)
        {
            Span<byte> expected = stackalloc byte[HMACSHA256.HashSizeInBytes];
            HMACSHA256.HashData(key, span[..SyncBytes], expected);
            if (!CryptographicOperations.FixedTimeEquals(expected, span[SyncBytes..]))
            {
                return false;
            }
        }

        replica = BinaryPrimitives.ReadUInt16LittleEndian(span);
        instance = BinaryPrimitives.ReadInt64LittleEndian(span[2..]);
        counter = BinaryPrimitives.ReadInt64LittleEndian(span[10..]);
        return replica < ReplicaIdentity.MaxReplicas && counter >= 0;
    }

    /// <summary>A refusal: the refusing replica's in-use window (8 bytes, milliseconds; -1 for never), then the reason in UTF-8.</summary>
    public static PeerMessage Refusal(string source, TimeSpan window, string reason)
    {
        var text = Encoding.UTF8.GetBytes(reason);
        var bytes = new byte[8 + text.Length];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, window == TimeSpan.MaxValue ? -1 : (long)Math.Ceiling(window.TotalMilliseconds));
        text.CopyTo(bytes, 8);
        return new PeerMessage(Refused, source, bytes);
    }

    public static bool TryRefusal(ReadOnlyMemory<byte> payload, out TimeSpan window, out string reason)
    {
        if (payload.Length < 8)
        {
            (window, reason) = (TimeSpan.Zero, string.Empty);
            return false;
        }

        var milliseconds = BinaryPrimitives.ReadInt64LittleEndian(payload.Span);
        window = milliseconds < 0 ? TimeSpan.MaxValue : TimeSpan.FromMilliseconds(Math.Min(milliseconds, (long)TimeSpan.FromDays(1).TotalMilliseconds));
        reason = Encoding.UTF8.GetString(payload.Span[8..]);
        return true;
    }

    public static PeerMessage Text(string type, string source, string text) => new(type, source, Encoding.UTF8.GetBytes(text));

    public static string TextOf(PeerMessage message) => Encoding.UTF8.GetString(message.Payload.Span);
}
