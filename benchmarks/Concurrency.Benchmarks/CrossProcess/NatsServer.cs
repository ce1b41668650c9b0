using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// A <c>nats-server</c> the gRPC experiment starts as a child process on a free loopback port, for its NATS row; killed
/// when disposed. Where no <c>nats-server</c> is installed, <see cref="Find"/> says so and the row is skipped.
/// </summary>
internal sealed class NatsServer : IDisposable
{
    /// <summary>How to get the server, for the line that says the row was skipped.</summary>
    public const string InstallHint = "apt-get install nats-server";

    private static readonly TimeSpan StartLimit = TimeSpan.FromSeconds(15);

    // Debian's package installs to /usr/sbin, which an ordinary user's PATH may lack.
    private static readonly string[] KnownFolders = ["/usr/sbin", "/usr/local/sbin", "/usr/local/bin", "/usr/bin"];

    private readonly Process _process;

    private NatsServer(Process process, string url)
    {
        _process = process;
        Url = url;
    }

    /// <summary>Gets where clients connect: <c>nats://127.0.0.1:PORT</c>.</summary>
    public string Url { get; }

    /// <summary>The line a report shows when there is no server to start.</summary>
    public static string SkipLine => $"NATS was not measured: nats-server is not installed (on PATH or in /usr/sbin); to get the row, {InstallHint}.";

    /// <summary>The <c>nats-server</c> executable on PATH or in a folder packages install to, or null where there is none.</summary>
    public static string? Find(string? path = null)
    {
        var folders = (path ?? Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries);
        return folders.Concat(path is null ? KnownFolders : []).Select(folder => Path.Combine(folder, "nats-server")).FirstOrDefault(File.Exists);
    }

    /// <summary>Starts <paramref name="executable"/> on 127.0.0.1 and a free port, and returns once it accepts connections.</summary>
    /// <exception cref="InvalidOperationException">The server exited, or did not accept within 15 s.</exception>
    public static NatsServer Start(string executable)
    {
        var port = FreePort();
        var start = new ProcessStartInfo(executable)
        {
            ArgumentList = { "-a", "127.0.0.1", "-p", port.ToString(CultureInfo.InvariantCulture) },
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {executable}.");

        // Its log is read (and kept only for the error below) so that a full pipe never stalls it.
        var log = new System.Collections.Concurrent.ConcurrentQueue<string>();
        process.OutputDataReceived += (_, line) => Keep(log, line.Data);
        process.ErrorDataReceived += (_, line) => Keep(log, line.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        var server = new NatsServer(process, string.Create(CultureInfo.InvariantCulture, $"nats://127.0.0.1:{port}"));
        try
        {
            var deadline = Stopwatch.StartNew();
            while (!Accepts(port))
            {
                if (process.HasExited || deadline.Elapsed > StartLimit)
                {
                    throw new InvalidOperationException($"nats-server did not accept connections on 127.0.0.1:{port}: {string.Join(" | ", log)}");
                }

                Thread.Sleep(50);
            }

            return server;
        }
        catch
        {
            server.Dispose();
            throw;
        }
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit(TimeSpan.FromSeconds(10));
        }

        _process.Dispose();
    }

    private static void Keep(System.Collections.Concurrent.ConcurrentQueue<string> log, string? line)
    {
        if (line is not null && log.Count < 20)
        {
            log.Enqueue(line);
        }
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
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
