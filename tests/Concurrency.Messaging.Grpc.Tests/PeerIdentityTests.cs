using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>The options that map tokens to identities and cap each: what is refused, and what each identity's share is.</summary>
public sealed class PeerIdentityTests
{
    public static TheoryData<string, PeerServerOptions> InvalidOptions => new()
    {
        { "BearerTokens", new PeerServerOptions { BearerToken = "t", BearerTokens = new Dictionary<string, string> { ["u"] = "a" } } },
        { "BearerTokens", new PeerServerOptions { BearerTokens = new Dictionary<string, string>() } },
        { "BearerTokens", new PeerServerOptions { BearerTokens = new Dictionary<string, string> { [" "] = "a" } } },
        { "BearerTokens", new PeerServerOptions { BearerTokens = new Dictionary<string, string> { ["t"] = " " } } },
        { "MaxStreamsPerIdentity", new PeerServerOptions { MaxStreamsPerIdentity = 0 } },
        { "MaxSessionsPerIdentity", new PeerServerOptions { MaxSessionsPerIdentity = -1 } },
        { "StreamIdleTimeout", new PeerServerOptions { StreamIdleTimeout = TimeSpan.Zero } },
        { "Urls", new PeerServerOptions { Urls = ["http://192.0.2.10:5000"], BearerTokens = new Dictionary<string, string> { ["t"] = "a" } } },
    };

    [Theory]
    [MemberData(nameof(InvalidOptions))]
    public async Task StartAsync_InvalidIdentityOptions_RefusedNamingTheOption(string name, PeerServerOptions options)
    {
        var ct = TestContext.Current.CancellationToken;
        var refused = await Assert.ThrowsAnyAsync<ArgumentException>(() => PeerServer.StartAsync(options, ct)).DefaultTimeout();
        Assert.Equal(name, refused.ParamName);
    }

    [Theory]
    [InlineData(1, 1000, 10_000)]
    [InlineData(2, 500, 5_000)]
    [InlineData(3, 333, 3_333)]
    [InlineData(10, 250, 2_500)]
    public void PerIdentityCaps_ByDefault_AreEachIdentitysShareButAtLeastAQuarter(int identities, int streams, int sessions)
    {
        var tokens = Enumerable.Range(0, identities).ToDictionary(i => $"token-{i}", i => $"identity-{i}");
        var options = new PeerServerOptions { BearerTokens = tokens };

        Assert.Equal(streams, options.StreamsPerIdentity);
        Assert.Equal(sessions, options.SessionsPerIdentity);
        Assert.Equal(7, (options with { MaxStreamsPerIdentity = 7 }).StreamsPerIdentity);
    }

    [Fact]
    public async Task SendAsync_TokenNotAmongBearerTokens_FailsUnauthenticatedWhileAListedOneIsAnswered()
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new PeerServerOptions { BearerTokens = new Dictionary<string, string> { ["token-alice"] = "alice", ["token-bob"] = "bob" } };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();

        var refused = await Assert.ThrowsAsync<PeerDeliveryException>(
            () => PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "token-carol" }, ct)).DefaultTimeout();
        await using var bob = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "token-bob" }, ct).DefaultTimeout();

        Assert.Equal(PeerDeliveryFailure.Unauthenticated, refused.Reason);
        Assert.Equal(5, Messages.Number(await bob.SendAsync(Messages.Numbered(5), ct).DefaultTimeout()));
    }

    [Fact]
    public void AddPeerService_IdentityOptionsFromConfiguration_AreBound()
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Peer:BearerTokens:token-alice"] = "alice",
            ["Peer:BearerTokens:token-bob"] = "bob",
            ["Peer:MaxStreamsPerIdentity"] = "12",
            ["Peer:StreamIdleTimeout"] = "00:00:45",
        }).Build();
        using var services = new ServiceCollection().AddPeerService(configuration.GetSection("Peer"), PeerHandlers.Echo).BuildServiceProvider();

        var options = services.GetRequiredService<IOptions<PeerServerOptions>>().Value;

        Assert.Equal("alice", options.BearerTokens!["token-alice"]);
        Assert.Equal("bob", options.BearerTokens["token-bob"]);
        Assert.Equal(12, options.StreamsPerIdentity);
        Assert.Null(options.MaxSessionsPerIdentity);
        Assert.Equal(TimeSpan.FromSeconds(45), options.StreamIdleTimeout);
    }
}
