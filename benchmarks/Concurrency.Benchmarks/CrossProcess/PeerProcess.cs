using System.Diagnostics;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// The benchmark program started again as <c>serve</c> on loopback: the peers the gRPC experiment measures against, in
/// a process of their own so that the server's work is not the client's.
/// </summary>
internal sealed class PeerProcess : IDisposable
{
    private static readonly TimeSpan StartLimit = TimeSpan.FromSeconds(60);

    private readonly Process _process;

    private PeerProcess(Process process, LabPeers peers)
    {
        _process = process;
        Peers = peers;
    }

    public LabPeers Peers { get; }

    /// <summary>
    /// Gets the CPU time the peer process has used so far, all its threads (user and kernel): read before and after a run,
    /// the server's cost of that run. Linux counts it in clock ticks (10 ms), so a run should take many of them.
    /// </summary>
    public TimeSpan CpuTime
    {
        get
        {
            _process.Refresh();
            return _process.TotalProcessorTime;
        }
    }

    /// <summary>Starts the peers: our server on <paramref name="url"/> (default: a free loopback port) and Proto.Remote's on a free port.</summary>
    public static PeerProcess Start(string url = "http://127.0.0.1:0")
    {
        var start = BenchmarkProcess.StartInfo(["serve", "--urls", url, "--proto-remote-port", "0"]);
        start.RedirectStandardInput = true;
        start.RedirectStandardError = true;
        var process = Process.Start(start) ?? throw new InvalidOperationException("Could not start the peer process.");
        var errors = process.StandardError.ReadToEndAsync();
        Uri? server = null;
        string? protoRemote = null;
        Uri? plainEcho = null;
        var reading = Task.Run(() =>
        {
            while (process.StandardOutput.ReadLine() is { } line && line != ServeCommand.Ready)
            {
                if (line.StartsWith(ServeCommand.PeerPrefix, StringComparison.Ordinal))
                {
                    server ??= new Uri(line[ServeCommand.PeerPrefix.Length..]);
                }
                else if (line.StartsWith(ServeCommand.ProtoRemotePrefix, StringComparison.Ordinal))
                {
                    protoRemote = line[ServeCommand.ProtoRemotePrefix.Length..];
                }
                else if (line.StartsWith(ServeCommand.PlainEchoPrefix, StringComparison.Ordinal))
                {
                    plainEcho = new Uri(line[ServeCommand.PlainEchoPrefix.Length..]);
                }
            }
        });
        if (!reading.Wait(StartLimit) || server is null || protoRemote is null || plainEcho is null)
        {
            process.Kill(entireProcessTree: true);
            process.WaitForExit();
            var message = errors.Wait(TimeSpan.FromSeconds(5)) ? errors.Result.Trim() : string.Empty;
            process.Dispose();
            throw new InvalidOperationException($"The peer process did not say where it listens: {message}");
        }

        return new PeerProcess(process, new LabPeers(server, protoRemote, PlainEcho: plainEcho));
    }

    /// <summary>Kills the process at once, as a crash would: its streams break mid-flight.</summary>
    public void Kill()
    {
        _process.Kill(entireProcessTree: true);
        _process.WaitForExit();
    }

    public void Dispose()
    {
        if (_process.HasExited)
        {
            _process.Dispose();
            return;
        }

        _process.StandardInput.Close();
        if (!_process.WaitForExit(TimeSpan.FromSeconds(30)))
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit();
        }

        _process.Dispose();
    }
}
