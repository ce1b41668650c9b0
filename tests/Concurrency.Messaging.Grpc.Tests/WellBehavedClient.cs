namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// A well-behaved <see cref="PeerClient"/> beside a hostile one. A hostile-client test connects it before the attack and
/// checks during or after it that the client is still served: every message it sends comes back with its own number,
/// which the test sees for itself rather than reading it from the server's counters. The server's handler must echo.
/// </summary>
internal sealed class WellBehavedClient : IAsyncDisposable
{
    private readonly PeerClient _client;

    // The next number to send; one test thread drives the client.
    private long _next;

    private WellBehavedClient(PeerClient client) => _client = client;

    /// <summary>Gets the client, for a test that reads its counters.</summary>
    public PeerClient Client => _client;

    /// <summary>Connects to <paramref name="server"/> and checks the client is served before the test goes on.</summary>
    public static async Task<WellBehavedClient> ConnectAsync(PeerServer server, PeerClientOptions? options = null)
    {
        var client = await PeerClient.ConnectAsync(server.Address.ToString(), options ?? Messages.Steady(), TestContext.Current.CancellationToken).DefaultTimeout();
        var bystander = new WellBehavedClient(client);
        try
        {
            await bystander.AssertServedAsync();
        }
        catch
        {
            await bystander.DisposeAsync();
            throw;
        }

        return bystander;
    }

    /// <summary>
    /// A new client after the attack: connects to <paramref name="server"/>, checks it is served, and disconnects.
    /// </summary>
    public static async Task AssertNewClientServedAsync(PeerServer server, PeerClientOptions? options = null)
    {
        await using var bystander = await ConnectAsync(server, options);
    }

    /// <summary>Sends <paramref name="count"/> numbered messages at once and checks each reply carries its request's number.</summary>
    public async Task AssertServedAsync(int count = 20)
    {
        var first = _next;
        _next += count;
        var ct = TestContext.Current.CancellationToken;
        var replies = await Task.WhenAll(Enumerable.Range(0, count).Select(i => _client.SendAsync(Messages.Numbered(first + i), ct))).DefaultTimeout();
        Assert.Equal(Enumerable.Range(0, count).Select(i => first + i), replies.Select(Messages.Number));
    }

    public ValueTask DisposeAsync() => _client.DisposeAsync();
}
