using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// A <c>nats-server</c> started as a child process on a free loopback port (the gRPC experiment's NATS rows, `lab nats`,
/// and the NATS package's tests, which compile this file in), optionally with JetStream storing in a folder of its own;
/// killed when disposed. <see cref="Kill"/> and <see cref="Restart"/> play a server that crashes (SIGKILL) and comes back
/// on the same port and store. Where no <c>nats-server</c> is installed, <see cref="Find"/> says so and the row or test
/// is skipped.
/// </summary>
internal sealed class NatsServer : IDisposable
{
    /// <summary>How to get the server, for the line that says the row was skipped.</summary>
    public const string InstallHint = "apt-get install nats-server";

    private static readonly TimeSpan StartLimit = TimeSpan.FromSeconds(15);

    // Debian's package installs to /usr/sbin, which an ordinary user's PATH may lack.
    private static readonly string[] KnownFolders = ["/usr/sbin", "/usr/local/sbin", "/usr/local/bin", "/usr/bin"];

    private readonly string _executable;
    private readonly int _port;
    private readonly string? _store;
    private Process _process;

    private NatsServer(string executable, int port, string? store)
    {
        _executable = executable;
        _port = port;
        _store = store;
        Url = string.Create(CultureInfo.InvariantCulture, $"nats://127.0.0.1:{port}");
        _process = Launch();
    }

    /// <summary>Gets where clients connect: <c>nats://127.0.0.1:PORT</c>.</summary>
    public string Url { get; }

    /// <summary>Gets the running server's process id.</summary>
    public int ProcessId => _process.Id;

    /// <summary>The line a report shows when there is no server to start.</summary>
    public static string SkipLine => $"NATS was not measured: nats-server is not installed (on PATH or in /usr/sbin); to get the row, {InstallHint}.";

    /// <summary>The <c>nats-server</c> executable on PATH or in a folder packages install to, or null where there is none.</summary>
    public static string? Find(string? path = null)
    {
        var folders = (path ?? Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries);
        return folders.Concat(path is null ? KnownFolders : []).Select(folder => Path.Combine(folder, "nats-server")).FirstOrDefault(File.Exists);
    }

    /// <summary>
    /// Starts <paramref name="executable"/> on 127.0.0.1 and a free port, with JetStream storing in
    /// <paramref name="jetStreamStore"/> if one is given, and returns once it accepts connections.
    /// </summary>
    /// <exception cref="InvalidOperationException">The server exited, or did not accept within 15 s.</exception>
    public static NatsServer Start(string executable, string? jetStreamStore = null) => new(executable, LoopbackPorts.Free(), jetStreamStore);

    /// <summary>Kills the server as a crash would (SIGKILL: nothing flushed, nothing said to clients) and waits until it is gone.</summary>
    public void Kill()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit(TimeSpan.FromSeconds(10));
        }
    }

    /// <summary>Starts the server again on the same port and store (killing it first if it runs), and returns once it accepts connections.</summary>
    public void Restart()
    {
        Kill();
        _process.Dispose();
        _process = Launch();
    }

    public void Dispose()
    {
        Kill();
        _process.Dispose();
    }

    private Process Launch()
    {
        var start = new ProcessStartInfo(_executable)
        {
            ArgumentList = { "-a", "127.0.0.1", "-p", _port.ToString(CultureInfo.InvariantCulture) },
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        if (_store is not null)
        {
            start.ArgumentList.Add("-js");
            start.ArgumentList.Add("-sd");
            start.ArgumentList.Add(_store);
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {_executable}.");

        // Its log is read (and kept only for the error below) so that a full pipe never stalls it.
        var log = new System.Collections.Concurrent.ConcurrentQueue<string>();
        process.OutputDataReceived += (_, line) => Keep(log, line.Data);
        process.ErrorDataReceived += (_, line) => Keep(log, line.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        var deadline = Stopwatch.StartNew();
        while (!Accepts(_port))
        {
            if (process.HasExited || deadline.Elapsed > StartLimit)
            {
                if (!process.HasExited)
                {
                    process.Kill(entireProcessTree: true);
                }

                process.Dispose();
                throw new InvalidOperationException($"nats-server did not accept connections on 127.0.0.1:{_port}: {string.Join(" | ", log)}");
            }

            Thread.Sleep(50);
        }

        return process;
    }

    private static void Keep(System.Collections.Concurrent.ConcurrentQueue<string> log, string? line)
    {
        if (line is not null && log.Count < 20)
        {
            log.Enqueue(line);
        }
    }

    private static bool Accepts(int port)
    {
        using var client = new TcpClient();
        try
        {
            client.Connect(IPAddress.Loopback, port);
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }
}
