using System.CommandLine;
using System.Globalization;
using System.Runtime.InteropServices;
using Concurrency.Benchmarks.Backbone.Runs;
using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// <c>-- serve [--urls URL] [--proto-remote-port N] [--token T]</c>: the far side of the gRPC experiment. Starts our echo
/// peer server, a Proto.Remote echo peer and the plain grpc-dotnet echo service (the yardstick, on a free port of the
/// first URL's host), prints where they listen ("peer URL", "proto-remote HOST:PORT", "plain-echo URL", then "ready"), and serves until its standard input closes or it is stopped (Ctrl+C, SIGTERM). The lab starts one on
/// loopback by itself; on another machine, start it by hand and give its addresses to <c>lab grpc --server URL
/// --proto-remote HOST:PORT</c>.
/// </summary>
internal static class ServeCommand
{
    public const string PeerPrefix = "peer ";
    public const string ProtoRemotePrefix = "proto-remote ";
    public const string PlainEchoPrefix = "plain-echo ";

    public static Command Create()
    {
        var urls = new Option<string[]>("--urls")
        {
            HelpName = "URL",
            Description = "where our peer listens (default http://127.0.0.1:0, a free port); for other machines e.g. --urls http://0.0.0.0:5000",
            Arity = ArgumentArity.OneOrMore,
        };
        var protoRemotePort = CommonOptions.WholeNumber("--proto-remote-port", "N", 0, 0, 65_535, "the Proto.Remote peer's port, on the host of the first URL (0: any free port)");
        var token = new Option<string?>("--token") { HelpName = "T", Description = "ask every client for this bearer token" };
        var command = new Command("serve", "The peers the gRPC experiment (lab grpc) measures against, our PeerServer echoing, a Proto.Remote echo actor and a plain grpc-dotnet echo service. Prints \"peer URL\", \"proto-remote HOST:PORT\", \"plain-echo URL\" and \"ready\", then serves until standard input closes or Ctrl+C. On the client machine: lab grpc --server http://HOST:5000 --proto-remote HOST:PORT")
        {
            urls, protoRemotePort, token,
        };
        command.SetAction(parse =>
        {
            var given = parse.GetValue(urls) is { Length: > 0 } list ? list.ToList() : ["http://127.0.0.1:0"];
            return ServeAsync(given, parse.GetValue(protoRemotePort), parse.GetValue(token), parse.InvocationConfiguration.Output).GetAwaiter().GetResult();
        });
        return command;
    }

    /// <summary>
    /// A server command's stop: cancelled by Ctrl+C or SIGTERM (<see cref="Stop"/>), and <see cref="UntilStoppedAsync"/>,
    /// which also ends when standard input closes, the parent process's way of saying "done".
    /// </summary>
    internal sealed class Stopping : IDisposable
    {
        private readonly CancellationTokenSource _stop = new();
        private readonly PosixSignalRegistration _interrupt;
        private readonly PosixSignalRegistration _terminate;

        public Stopping()
        {
            _interrupt = PosixSignalRegistration.Create(PosixSignal.SIGINT, Cancel);
            _terminate = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Cancel);
        }

        public CancellationToken Stop => _stop.Token;

        public Task UntilStoppedAsync()
        {
            var inputClosed = Task.Run(() => Console.In.ReadToEnd(), CancellationToken.None);
            return Task.WhenAny(inputClosed, Task.Delay(Timeout.Infinite, _stop.Token));
        }

        public void Dispose()
        {
            _interrupt.Dispose();
            _terminate.Dispose();
            _stop.Dispose();
        }

        private void Cancel(PosixSignalContext context)
        {
            context.Cancel = true;
            _stop.Cancel();
        }
    }

    private static async Task<int> ServeAsync(List<string> urls, int protoRemotePort, string? token, TextWriter output)
    {
        using var stopping = new Stopping();
        var stop = stopping.Stop;
        var protoHost = new Uri(urls[0]).Host;
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { Urls = urls, BearerToken = token }, stop).ConfigureAwait(false);
        await using var protoRemote = await ProtoRemoteEchoServer.StartAsync(protoHost, protoRemotePort, stop).ConfigureAwait(false);
        await using var plainEcho = await PlainEchoServer.StartAsync(new UriBuilder(urls[0]) { Port = 0 }.Uri.ToString(), stop).ConfigureAwait(false);
        foreach (var address in server.Addresses)
        {
            output.WriteLine(PeerPrefix + address);
        }

        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{ProtoRemotePrefix}{protoRemote.Host}:{protoRemote.Port}"));
        output.WriteLine(PlainEchoPrefix + plainEcho.Address);
        output.WriteLine(ServerProcess.Ready);
        output.Flush();

        await stopping.UntilStoppedAsync().ConfigureAwait(false);
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"served: {server.HandledCount:N0} handled, {server.DuplicateCount:N0} duplicates answered from memory"));
        return 0;
    }
}
