using System.Globalization;
using Concurrency.Benchmarks.CrossProcess;

namespace Concurrency.Messaging.Grpc.Tests.Replicas;

/// <summary>
/// Replicas in the test's process, each with a peer server on a loopback port picked before any starts (so that each can
/// name the others), a data folder of its own under one temporary folder, and the options the test gives.
/// </summary>
internal sealed class ReplicaCluster : IAsyncDisposable
{
    private readonly SequenceReplica?[] _replicas;

    public ReplicaCluster(int size)
    {
        Root = Directory.CreateTempSubdirectory("concurrency-replicas-").FullName;
        Addresses = LoopbackPorts.FreeAddresses(size);
        _replicas = new SequenceReplica?[size];
    }

    public string Root { get; }

    public string[] Addresses { get; }

    public SequenceReplica this[int index] => _replicas[index] ?? throw new InvalidOperationException($"Replica {index} is not running.");

    /// <summary>The options of replica <paramref name="id"/> in this cluster: its address, its folder, every other replica as a peer.</summary>
    public SequenceReplicaOptions Options(int id, IEnumerable<int>? peers = null) => new()
    {
        Id = id,
        DataFolder = Folder(id),
        Peers = [.. (peers ?? Enumerable.Range(0, Addresses.Length).Where(other => other != id)).Select(other => Addresses[other])],
        Server = new PeerServerOptions { Urls = [Addresses[id]] },
    };

    public string Folder(int id) => Path.Combine(Root, id.ToString(CultureInfo.InvariantCulture));

    public async Task<SequenceReplica> StartAsync(SequenceReplicaOptions options)
    {
        var replica = await SequenceReplica.StartAsync(options, TestContext.Current.CancellationToken).DefaultTimeout();
        _replicas[options.Id] = replica;
        return replica;
    }

    public async Task StopAsync(int id)
    {
        if (_replicas[id] is { } replica)
        {
            _replicas[id] = null;
            await replica.DisposeAsync();
        }
    }

    public SequenceClient Client(int first, TimeSpan? failover = null) =>
        SequenceClient.Create(Addresses, new SequenceClientOptions { FirstReplica = first, FailoverTimeout = failover ?? TimeSpan.FromSeconds(5) });

    public async ValueTask DisposeAsync()
    {
        for (var id = 0; id < _replicas.Length; id++)
        {
            await StopAsync(id);
        }

        Directory.Delete(Root, recursive: true);
    }
}
