using Concurrency.Benchmarks.CrossProcess;

namespace Concurrency.Benchmarks.Tests.Grpc;

/// <summary>The yardstick of the end-to-end goal: the plain grpc-dotnet echo returns every batch whole, and its run checks so.</summary>
public sealed class PlainEchoTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(1);

    [Theory]
    [InlineData(256, 2_560)]
    [InlineData(256, 1_000)] // a last batch shorter than the rest
    [InlineData(1, 100)]
    public async Task PlainEcho_Batches_EveryEnvelopeComesBackCountedAndChecked(int perWrite, int messages)
    {
        var cancellation = TestContext.Current.CancellationToken;
        await using var server = await PlainEchoServer.StartAsync("http://127.0.0.1:0", cancellation).WaitAsync(Limit, cancellation);

        // Verification is inside the run: it throws unless each message came back once (count and checksum).
        var result = await PeerRuns.PlainEchoAsync(server.Address, perWrite, 64, messages, cancellation).WaitAsync(Limit, cancellation);

        Assert.True(result.MessagesPerSecond > 0);
        Assert.True(result.BytesPerMessage > 0);
    }
}
