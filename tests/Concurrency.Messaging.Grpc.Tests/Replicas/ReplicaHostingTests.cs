namespace Concurrency.Messaging.Grpc.Tests.Replicas;

/// <summary>A replica inside an ASP.NET Core app of the test's own, as <c>AddPeerService</c> is hosted.</summary>
public sealed class ReplicaHostingTests
{
    [Fact]
    public async Task AddSequenceReplica_HostedApp_ServesIdentities_AndASecondAppOnTheSameFolderFailsToStart()
    {
        var folder = Directory.CreateTempSubdirectory("concurrency-hosted-replica-").FullName;
        try
        {
            var builder = HostedPeer.Builder();
            builder.Services.AddSequenceReplica(new SequenceReplicaOptions { Id = 3, DataFolder = folder });
            await using var app = await HostedPeer.StartAsync(builder);
            await using var client = SequenceClient.Create([HostedPeer.Address(app).ToString()]);

            var first = await client.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
            var second = await client.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();

            Assert.Equal(3, ReplicaIdentity.ReplicaOf(first));
            Assert.True(second > first);

            var twin = HostedPeer.Builder();
            twin.Services.AddSequenceReplica(new SequenceReplicaOptions { Id = 3, DataFolder = folder });
            await Assert.ThrowsAsync<IOException>(() => HostedPeer.StartAsync(twin));
            await app.StopAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
