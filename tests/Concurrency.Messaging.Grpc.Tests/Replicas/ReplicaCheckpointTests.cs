namespace Concurrency.Messaging.Grpc.Tests.Replicas;

/// <summary>The replica's file: durable, one writer, bounded, and never overwritten when it cannot be read.</summary>
public sealed class ReplicaCheckpointTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("concurrency-replica-").FullName;

    [Fact]
    public void Open_NewFolder_StartsAtZero_AndAReopenReadsTheLastWrite()
    {
        using (var checkpoint = ReplicaCheckpoint.Open(_folder, replica: 3))
        {
            Assert.Equal(0, checkpoint.Reserved);
            checkpoint.Write(1_000);
            checkpoint.Write(2_000);
            checkpoint.Write(3_000);
        }

        using var reopened = ReplicaCheckpoint.Open(_folder, replica: 3);
        Assert.Equal(3_000, reopened.Reserved);
        Assert.Equal(4096 + 32, new FileInfo(Path.Combine(_folder, ReplicaCheckpoint.FileName)).Length); // bounded: two slots, whatever was written
    }

    [Fact]
    public void Open_FolderHeldByARunningReplica_IsRefused()
    {
        using var first = ReplicaCheckpoint.Open(_folder, replica: 1);

        var error = Assert.Throws<IOException>(() => ReplicaCheckpoint.Open(_folder, replica: 1));
        Assert.Contains("in use", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Open_FolderOfAnotherId_IsRefused()
    {
        using (var checkpoint = ReplicaCheckpoint.Open(_folder, replica: 1))
        {
            checkpoint.Write(10);
        }

        var error = Assert.Throws<InvalidDataException>(() => ReplicaCheckpoint.Open(_folder, replica: 2));
        Assert.Contains("belongs to replica 1", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Open_NewestSlotTorn_FallsBackToTheOlderSlot()
    {
        using (var checkpoint = ReplicaCheckpoint.Open(_folder, replica: 5))
        {
            checkpoint.Write(100); // generation 2, slot 0
            checkpoint.Write(200); // generation 3, slot 1
        }

        // A write cut short: the newest slot (slot 1, at 4096) half written.
        var path = Path.Combine(_folder, ReplicaCheckpoint.FileName);
        using (var file = new FileStream(path, FileMode.Open, FileAccess.Write))
        {
            file.Position = 4096 + 20;
            file.Write([0xFF, 0xFF, 0xFF]);
        }

        using var reopened = ReplicaCheckpoint.Open(_folder, replica: 5);
        Assert.Equal(100, reopened.Reserved);
    }

    [Fact]
    public void Open_NoWholeSlot_IsRefusedAndTheFileLeftAsItIs()
    {
        var path = Path.Combine(_folder, ReplicaCheckpoint.FileName);
        var garbage = Enumerable.Range(0, 5000).Select(i => (byte)(i * 7 + 1)).ToArray();
        File.WriteAllBytes(path, garbage);

        Assert.Throws<InvalidDataException>(() => ReplicaCheckpoint.Open(_folder, replica: 0));
        Assert.Equal(garbage, File.ReadAllBytes(path));
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
