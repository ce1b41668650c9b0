using System.Diagnostics;
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
    private static readonly TimeSpan StartLimit = TimeSpan.FromSeconds(60);

    private readonly string[] _arguments;
    private Process _process;

    private ReplicaProcess(int id, string address, string[] arguments)
    {
        Id = id;
        Address = address;
        _arguments = arguments;
        _process = Launch(arguments, id);
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
    public void Kill()
    {
        _process.Kill(entireProcessTree: true);
        _process.WaitForExit();
    }

    /// <summary>Starts the replica again, same id, address and folder, after <see cref="Kill"/>; returns once it serves.</summary>
    public void Restart()
    {
        _process.Dispose();
        _process = Launch(_arguments, Id);
    }

    /// <summary>Stops the replica the polite way (its standard input closes), so that it writes its records and counts.</summary>
    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.StandardInput.Close();
            var summary = _process.StandardOutput.ReadToEndAsync();
            if (!_process.WaitForExit(TimeSpan.FromSeconds(30)))
            {
                _process.Kill(entireProcessTree: true);
                _process.WaitForExit();
            }

            Summary = summary.Wait(TimeSpan.FromSeconds(5)) ? summary.Result.Trim() : null;
        }

        _process.Dispose();
    }

    private static Process Launch(string[] arguments, int id)
    {
        var start = BenchmarkProcess.StartInfo(arguments);
        start.RedirectStandardInput = true;
        start.RedirectStandardError = true;
        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start replica {id}.");
        var errors = process.StandardError.ReadToEndAsync();
        var said = new List<string>();
        var reading = Task.Run(() =>
        {
            while (process.StandardOutput.ReadLine() is { } line && line != ReplicaCommand.Ready)
            {
                said.Add(line);
            }
        });
        if (!reading.Wait(StartLimit) || process.HasExited)
        {
            if (!process.HasExited)
            {
                process.Kill(entireProcessTree: true);
            }

            process.WaitForExit();
            var message = errors.Wait(TimeSpan.FromSeconds(5)) ? errors.Result.Trim() : string.Empty;
            process.Dispose();
            throw new InvalidOperationException($"Replica {id} did not start: {string.Join(" / ", said)} {message}".Trim());
        }

        return process;
    }
}
