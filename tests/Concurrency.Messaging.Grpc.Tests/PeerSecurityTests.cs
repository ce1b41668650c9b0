using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Concurrency.Messaging.Grpc.Tests;

public sealed class PeerSecurityTests
{
    [Fact]
    public async Task ConnectAsync_ServerWantsATokenAndNoneIsSent_FailsUnauthenticated()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { BearerToken = "s3cret" }, ct).DefaultTimeout();
        await using var bystander = await WellBehavedClient.ConnectAsync(server, Messages.Steady() with { BearerToken = "s3cret" });
        var served = server.HandledCount;

        var error = await Assert.ThrowsAsync<PeerDeliveryException>(() => PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick(), ct)).DefaultTimeout();

        Assert.Equal(PeerDeliveryFailure.Unauthenticated, error.Reason);
        Assert.Equal(served, server.HandledCount);
        await bystander.AssertServedAsync();
    }

    [Fact]
    public async Task SendAsync_WrongToken_FailsUnauthenticatedAtOnceAndLaterSendsToo()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { BearerToken = "s3cret" }, ct).DefaultTimeout();
        await using var bystander = await WellBehavedClient.ConnectAsync(server, Messages.Steady() with { BearerToken = "s3cret" });
        await using var client = PeerClient.Create(server.Address.ToString(), Messages.Quick() with { BearerToken = "guess" });

        var first = await Assert.ThrowsAsync<PeerDeliveryException>(() => client.SendAsync(Messages.Numbered(1), ct)).DefaultTimeout();
        var later = await Assert.ThrowsAsync<PeerDeliveryException>(() => client.SendAsync(Messages.Numbered(2), ct)).DefaultTimeout();

        Assert.Equal(PeerDeliveryFailure.Unauthenticated, first.Reason);
        Assert.Equal(PeerDeliveryFailure.Unauthenticated, later.Reason);
        await bystander.AssertServedAsync();
    }

    [Fact]
    public async Task SendAsync_RightToken_IsAnswered()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { BearerToken = "s3cret" }, Messages.Quick() with { BearerToken = "s3cret" });
        var client = peers.Client;

        Assert.Equal(5, Messages.Number(await client.SendAsync(Messages.Numbered(5), ct).DefaultTimeout()));
    }

    [Fact]
    public async Task SendAsync_TlsWithTrustedSelfSignedCertificate_IsAnsweredAndUntrustedIsRefused()
    {
        var ct = TestContext.Current.CancellationToken;
        using var certificate = SelfSigned();
        var path = Path.Combine(Path.GetTempPath(), $"peer-{Guid.NewGuid():N}.pfx");
        await File.WriteAllBytesAsync(path, certificate.Export(X509ContentType.Pkcs12, "pw"), ct);
        try
        {
            var options = new PeerServerOptions { Urls = ["https://127.0.0.1:0"], CertificatePath = path, CertificatePassword = "pw", BearerToken = "t" };
            await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
            Assert.Equal("https", server.Address.Scheme);

            await using (var trusted = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "t", TrustedServerCertificate = certificate }, ct).DefaultTimeout())
            {
                Assert.Equal(9, Messages.Number(await trusted.SendAsync(Messages.Numbered(9), ct).DefaultTimeout()));
            }

            // Reported as what it is, at once: no retries until the connect timeout (set long here) runs out.
            var untrusted = await Assert.ThrowsAsync<PeerDeliveryException>(
                () => PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "t", ConnectTimeout = TimeSpan.FromSeconds(25) }, ct)).DefaultTimeout();
            Assert.Equal(PeerDeliveryFailure.UntrustedCertificate, untrusted.Reason);
            Assert.Contains("TrustedServerCertificate", untrusted.Message, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Theory]
    [InlineData("")]
    [InlineData("   ")]
    public async Task Options_EmptyToken_RefusedOnBothSides(string token)
    {
        var ct = TestContext.Current.CancellationToken;

        var client = Assert.Throws<ArgumentException>(() => PeerClient.Create("http://127.0.0.1:1", Messages.Quick() with { BearerToken = token }));
        var server = await Assert.ThrowsAsync<ArgumentException>(() => PeerServer.StartAsync(new PeerServerOptions { BearerToken = token }, ct)).DefaultTimeout();

        Assert.Equal("BearerToken", client.ParamName);
        Assert.Equal("BearerToken", server.ParamName);
    }

    [Theory]
    [InlineData("http://0.0.0.0:0")]
    [InlineData("http://192.0.2.10:5000")]
    public async Task StartAsync_TokenOnPlainHttpOffLoopback_RefusedUnlessAllowed(string url)
    {
        var ct = TestContext.Current.CancellationToken;

        var refused = await Assert.ThrowsAsync<ArgumentException>(() => PeerServer.StartAsync(new PeerServerOptions { Urls = [url], BearerToken = "t" }, ct)).DefaultTimeout();

        Assert.Contains("clear text", refused.Message, StringComparison.Ordinal);
        Assert.Contains("AllowInsecureCredentials", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Create_TokenOnPlainHttpOffLoopback_RefusedBeforeAnyConnection()
    {
        // 192.0.2.0/24 is reserved for documentation: nothing is ever sent there, the refusal comes first.
        var refused = Assert.Throws<ArgumentException>(() => PeerClient.Create("http://192.0.2.10:5000", Messages.Quick() with { BearerToken = "t" }));

        Assert.Contains("clear text", refused.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("http://127.0.0.1:5000", false, true)]
    [InlineData("http://localhost:5000", false, true)]
    [InlineData("http://[::1]:5000", false, true)]
    [InlineData("https://192.0.2.10:5000", false, true)]
    [InlineData("http://192.0.2.10:5000", false, false)]
    [InlineData("http://0.0.0.0:5000", false, false)]
    [InlineData("http://192.0.2.10:5000", true, true)]
    public void RefuseClearText_ByAddressAndChoice(string address, bool allowInsecure, bool accepted)
    {
        var check = () => PeerCredentials.RefuseClearText(new Uri(address), "t", allowInsecure, "address");

        if (accepted)
        {
            check();
            PeerCredentials.RefuseClearText(new Uri(address), null, allowInsecure, "address"); // no token, nothing to protect
        }
        else
        {
            Assert.Throws<ArgumentException>(check);
            PeerCredentials.RefuseClearText(new Uri(address), null, allowInsecure, "address");
        }
    }

    private static X509Certificate2 SelfSigned()
    {
        using var key = RSA.Create(2048);
        var request = new CertificateRequest("CN=127.0.0.1", key, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        var names = new SubjectAlternativeNameBuilder();
        names.AddIpAddress(System.Net.IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        using var created = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddHours(1));
        return X509CertificateLoader.LoadPkcs12(created.Export(X509ContentType.Pkcs12, "pw"), "pw");
    }
}
