using System.Net;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The rules both peers apply to a bearer token: never empty, and never sent or accepted in clear text (plain
/// <c>http://</c>) off the loopback interface unless the caller says so with <c>AllowInsecureCredentials</c>.
/// </summary>
internal static class PeerCredentials
{
    /// <exception cref="ArgumentException">The token is empty or white space.</exception>
    public static void ValidateToken(string? token, string name)
    {
        if (token is not null && string.IsNullOrWhiteSpace(token))
        {
            throw new ArgumentException("A bearer token must not be empty or white space (the bare header 'Bearer ' would then authenticate). Use null for no token.", name);
        }
    }

    /// <exception cref="ArgumentException">A token would cross a network in clear text and the caller did not allow it.</exception>
    public static void RefuseClearText(Uri address, string? token, bool allowInsecure, string name)
    {
        if (token is not null && !allowInsecure && address.Scheme == Uri.UriSchemeHttp && !IsLoopback(address.Host))
        {
            throw new ArgumentException(
                $"'{address}' is plain http:// off the loopback interface: the bearer token (and the session id) would cross the network in clear text. Use https:// with a certificate, or set AllowInsecureCredentials = true on a network you trust.",
                name);
        }
    }

    /// <summary>Whether a host name or address is this machine's loopback (a wildcard such as 0.0.0.0 or * is not).</summary>
    public static bool IsLoopback(string host)
    {
        var bare = host.Trim('[', ']');
        return string.Equals(bare, "localhost", StringComparison.OrdinalIgnoreCase)
            || (IPAddress.TryParse(bare, out var address) && IPAddress.IsLoopback(address));
    }
}
