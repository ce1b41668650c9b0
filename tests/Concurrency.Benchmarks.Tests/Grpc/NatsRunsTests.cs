using System.Net.Sockets;
using Concurrency.Benchmarks.CrossProcess;

namespace Concurrency.Benchmarks.Tests.Grpc;

/// <summary>The NATS row: request/reply against a real nats-server on loopback where one is installed, and one clear line where none is.</summary>
public sealed class NatsRunsTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(1);

    [Theory]
    [InlineData(1)]
    [InlineData(50)]
    public async Task RequestReply_NatsServerInstalled_EveryReplyCountedAndChecked(int senders)
    {
        var executable = NatsServer.Find();
        Assert.SkipWhen(executable is null, $"nats-server is not installed (on PATH or in /usr/sbin): {NatsServer.InstallHint}.");
        using var server = NatsServer.Start(executable!);

        // Verification is inside the run: it throws unless each of the 1,000 messages came back once (count and checksum).
        var result = await NatsRuns.RequestReplyAsync(server.Url, senders, 64, 1_000, TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);

        Assert.True(result.MessagesPerSecond > 0);
        Assert.True(result.P50 > 0);
    }

    [Fact]
    public void Dispose_RunningServer_StopsListening()
    {
        var executable = NatsServer.Find();
        Assert.SkipWhen(executable is null, $"nats-server is not installed (on PATH or in /usr/sbin): {NatsServer.InstallHint}.");
        var server = NatsServer.Start(executable!);
        var port = new Uri(server.Url).Port;

        server.Dispose();

        using var client = new TcpClient();
        Assert.Throws<SocketException>(() => client.Connect("127.0.0.1", port));
    }

    [Fact]
    public void Find_NotOnThePathGiven_NullAndTheSkipIsOneLineSayingHowToInstall()
    {
        var empty = Directory.CreateTempSubdirectory("no-nats-").FullName;
        try
        {
            Assert.Null(NatsServer.Find(empty));
            Assert.DoesNotContain('\n', NatsServer.SkipLine);
            Assert.Contains("apt-get install nats-server", NatsServer.SkipLine, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(empty);
        }
    }
}
