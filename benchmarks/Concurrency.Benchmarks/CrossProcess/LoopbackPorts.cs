using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// Free ports on loopback for the servers the benchmarks and tests start (nats-server, peer servers, replicas; the test
/// projects that start them compile this file in): each the one the operating system gives a listener on port 0. A port is
/// free when asked, not held: another process may take it before the server binds, which the server's start then reports.
/// </summary>
internal static class LoopbackPorts
{
    /// <summary>Gets a free loopback port.</summary>
    public static int Free() => Addresses(1)[0].Port;

    /// <summary>
    /// Gets <paramref name="count"/> free loopback ports as <c>http://127.0.0.1:PORT</c> addresses, all different (their
    /// listeners are open together while they are picked): a cluster's addresses, known before any member starts.
    /// </summary>
    public static string[] FreeAddresses(int count)
        => Addresses(count).Select(endpoint => string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{endpoint.Port}")).ToArray();

    private static IPEndPoint[] Addresses(int count)
    {
        var listeners = Enumerable.Range(0, count).Select(_ => new TcpListener(IPAddress.Loopback, 0)).ToList();
        try
        {
            listeners.ForEach(listener => listener.Start());
            return listeners.Select(listener => (IPEndPoint)listener.LocalEndpoint).ToArray();
        }
        finally
        {
            listeners.ForEach(listener => listener.Stop());
        }
    }
}
