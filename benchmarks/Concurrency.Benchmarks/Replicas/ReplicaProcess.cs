using System.Globalization;
using Concurrency.Benchmarks.Backbone.Runs;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// The benchmark program started again as <c>replica</c> on a fixed loopback port (so that a replica killed with
/// <c>kill -9</c> comes back where its peers look for it), on a data folder that outlives it. <c>lab replicas</c> and the
/// multi-process test start their clusters with it.
/// </summary>
internal sealed class ReplicaProcess : IDisposable
{
    private readonly string[] _arguments;
    private ServerProcess _process;

    private ReplicaProcess(int id, string address, string[] arguments)
    {
        Id = id;
        Address = address;
        _arguments = arguments;
        _process = ServerProcess.Start(arguments, $"Replica {id}");
    }

    public int Id { get; }

    /// <summary>Gets where the replica listens: <c>http://127.0.0.1:PORT</c>.</summary>
    public string Address { get; }

    public int ProcessId => _process.Id;

    /// <summary>Gets what the replica printed when it stopped (its counts), once <see cref="Dispose"/> ran.</summary>
    public string? Summary { get; private set; }

    /// <summary>Starts replica <paramref name="id"/> of the cluster at <paramref name="addresses"/> (its own is addresses[id]) and returns once it serves.</summary>
    /// <exception cref="InvalidOperationException">It exited, refused to start, or did not say "ready" within a minute.</exception>
    public static ReplicaProcess Start(int id, string[] addresses, string dataFolder, int periodMs, string? recordsPath = null, int block = 65_536)
    {
        List<string> arguments =
        [
            "replica", "--id", id.ToString(CultureInfo.InvariantCulture), "--data", dataFolder, "--listen", addresses[id],
            "--period", periodMs.ToString(CultureInfo.InvariantCulture), "--block", block.ToString(CultureInfo.InvariantCulture),
        ];
        var peers = addresses.Where((_, index) => index != id).ToArray();
        if (peers.Length > 0)
        {
            arguments.AddRange(["--peers", string.Join(',', peers)]);
        }

        if (recordsPath is not null)
        {
            arguments.AddRange(["--records", recordsPath]);
        }

        return new ReplicaProcess(id, addresses[id], [.. arguments]);
    }

    /// <summary>Starts the key-value block yardstick (<c>kv-replica</c>) at <paramref name="address"/>, on the NATS server at <paramref name="natsUrl"/>.</summary>
    public static ReplicaProcess StartKeyValue(int id, string address, string natsUrl) =>
        new(id, address, [KvReplicaCommand.Name, "--nats", natsUrl, "--listen", address]);

    /// <summary>Kills the replica with SIGKILL, as a crash would: nothing of it runs after this returns.</summary>
    public void Kill() => _process.Kill();

    /// <summary>Starts the replica again, same id, address and folder, after <see cref="Kill"/>; returns once it serves.</summary>
    public void Restart()
    {
        _process.Dispose();
        _process = ServerProcess.Start(_arguments, $"Replica {Id}");
    }

    /// <summary>Stops the replica the polite way (its standard input closes), so that it writes its records and counts.</summary>
    public void Dispose()
    {
        Summary = _process.Stop() ?? Summary;
        _process.Dispose();
    }
}
