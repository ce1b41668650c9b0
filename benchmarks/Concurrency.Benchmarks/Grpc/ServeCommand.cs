using System.Globalization;
using System.Runtime.InteropServices;
using Concurrency.Benchmarks.Cli;
using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.Grpc;

/// <summary>
/// <c>-- serve [--urls URL] [--proto-remote-port N] [--token T]</c>: the far side of the gRPC experiment. Starts our echo
/// peer server and a Proto.Remote echo peer, prints where they listen ("peer URL", "proto-remote HOST:PORT", then
/// "ready"), and serves until its standard input closes or it is stopped (Ctrl+C, SIGTERM). The lab starts one on
/// loopback by itself; on another machine, start it by hand and give its addresses to <c>lab grpc --server URL
/// --proto-remote HOST:PORT</c>.
/// </summary>
internal static class ServeCommand
{
    public const string PeerPrefix = "peer ";
    public const string ProtoRemotePrefix = "proto-remote ";
    public const string Ready = "ready";

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        var urls = new List<string>();
        var protoRemotePort = 0;
        string? token = null;
        for (var i = 0; i < args.Count; i++)
        {
            switch (args[i])
            {
                case "--urls":
                    urls.Add(Value(args, ref i));
                    break;
                case "--proto-remote-port" when i + 1 < args.Count && int.TryParse(args[i + 1], NumberStyles.None, CultureInfo.InvariantCulture, out var port) && port < 65536:
                    protoRemotePort = port;
                    i++;
                    break;
                case "--proto-remote-port":
                    throw new UsageException("serve: --proto-remote-port needs a port number (0 for any free port).");
                case "--token":
                    token = Value(args, ref i);
                    break;
                case "--help" or "-h":
                    output.Write(HelpText.Serve);
                    return 0;
                default:
                    throw new UsageException($"serve: unknown option '{args[i]}'; see serve --help.");
            }
        }

        return ServeAsync(urls.Count == 0 ? ["http://127.0.0.1:0"] : urls, protoRemotePort, token, output).GetAwaiter().GetResult();
    }

    private static async Task<int> ServeAsync(List<string> urls, int protoRemotePort, string? token, TextWriter output)
    {
        using var stop = new CancellationTokenSource();
        using var interrupt = PosixSignalRegistration.Create(PosixSignal.SIGINT, context => { context.Cancel = true; stop.Cancel(); });
        using var terminate = PosixSignalRegistration.Create(PosixSignal.SIGTERM, context => { context.Cancel = true; stop.Cancel(); });
        var protoHost = new Uri(urls[0]).Host;
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { Urls = urls, BearerToken = token }, stop.Token).ConfigureAwait(false);
        await using var protoRemote = await ProtoRemoteEchoServer.StartAsync(protoHost, protoRemotePort, stop.Token).ConfigureAwait(false);
        foreach (var address in server.Addresses)
        {
            output.WriteLine(PeerPrefix + address);
        }

        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{ProtoRemotePrefix}{protoRemote.Host}:{protoRemote.Port}"));
        output.WriteLine(Ready);
        output.Flush();

        // Standard input closing is the parent's way of saying "done"; a person stops it with Ctrl+C.
        var inputClosed = Task.Run(() => Console.In.ReadToEnd(), CancellationToken.None);
        await Task.WhenAny(inputClosed, Task.Delay(Timeout.Infinite, stop.Token)).ConfigureAwait(false);
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"served: {server.HandledCount:N0} handled, {server.DuplicateCount:N0} duplicates answered from memory"));
        return 0;
    }

    private static string Value(IReadOnlyList<string> args, ref int i)
    {
        if (i + 1 >= args.Count || args[i + 1].StartsWith('-'))
        {
            throw new UsageException($"serve: {args[i]} needs a value.");
        }

        return args[++i];
    }
}
