using System.CommandLine;
using System.Globalization;
using Concurrency.Benchmarks.Backbone.Runs;
using Concurrency.Benchmarks.CrossProcess;
using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// <c>-- replica --id N --data DIR [--listen URL] [--peers URL,URL] [--period MS] [--block N] [--token-file F]
/// [--certificate F] [--records F]</c>: one identity replica (<see cref="SequenceReplica"/>) as a process of its own. Prints
/// "address URL" and "ready", then serves until standard input closes or it is stopped (Ctrl+C, SIGTERM), and prints
/// what it handed out. Secure by default: loopback unless told otherwise; off loopback a token is required (read from a
/// file or <c>REPLICA_TOKEN</c>, never from the command line, where other users of the machine can read it), and the peer
/// server refuses to take it over plain http.
/// </summary>
internal static class ReplicaCommand
{
    public const string AddressPrefix = "address ";
    public const string TokenVariable = "REPLICA_TOKEN";
    public const string KeyVariable = "REPLICA_CLUSTER_KEY";

    public static Command Create()
    {
        var id = CommonOptions.WholeNumber("--id", "N", -1, -1, ReplicaIdentity.MaxReplicas - 1, $"the replica's id, 0 to {ReplicaIdentity.MaxReplicas - 1}, unique in the cluster (required)");
        var data = new Option<string?>("--data") { HelpName = "DIR", Description = "the folder the replica keeps its checkpoint in; it must survive restarts (required)" };
        var listen = new Option<string>("--listen") { HelpName = "URL", Description = "where the replica listens (default http://127.0.0.1:0, a free loopback port)", DefaultValueFactory = _ => "http://127.0.0.1:0" };
        var peers = new Option<string?>("--peers") { HelpName = "URL,URL", Description = "the other replicas' addresses, comma-separated" };
        var period = CommonOptions.WholeNumber("--period", "MS", 100, 1, 60_000, "the synchronization period in milliseconds");
        var block = CommonOptions.WholeNumber("--block", "N", 65_536, 2, 1 << 30, "counters reserved on disk per fsync");
        var tokenFile = new Option<string?>("--token-file") { HelpName = "FILE", Description = $"a file holding the bearer token the replicas and clients share (or set {TokenVariable}); required off loopback" };
        var keyFile = new Option<string?>("--cluster-key-file") { HelpName = "FILE", Description = $"a file holding the secret every replica shares, 16 bytes or more (or set {KeyVariable}): exchanges are signed with it, so that a client holding the token cannot pose as a replica; required off loopback" };
        var certificate = new Option<string?>("--certificate") { HelpName = "FILE", Description = "a PKCS#12 certificate to serve TLS with (its password in REPLICA_CERTIFICATE_PASSWORD)" };
        var records = new Option<string?>("--records") { HelpName = "FILE", Description = "write the counter's timestamped records here on exit (for lab replicas' staleness)" };
        var command = new Command("replica", "One identity replica: hands out unique identities to SequenceClients and exchanges counters with its peers. Prints \"address URL\" and \"ready\", then serves until standard input closes or Ctrl+C.")
        {
            id, data, listen, peers, period, block, tokenFile, keyFile, certificate, records,
        };
        command.SetAction(parse =>
        {
            var replica = parse.GetValue(id);
            var folder = parse.GetValue(data);
            if (replica < 0 || string.IsNullOrWhiteSpace(folder))
            {
                throw new UsageException("replica needs --id N and --data DIR.");
            }

            var token = parse.GetValue(tokenFile) is { } file ? File.ReadAllText(file).Trim() : Environment.GetEnvironmentVariable(TokenVariable);
            var address = parse.GetValue(listen)!;
            var key = parse.GetValue(keyFile) is { } keys ? File.ReadAllText(keys).Trim() : Environment.GetEnvironmentVariable(KeyVariable);
            if ((token is null || key is null) && !IsLoopback(address))
            {
                throw new UsageException($"replica listens off loopback ({address}): give it a token (--token-file or {TokenVariable}), a cluster key (--cluster-key-file or {KeyVariable}) and a certificate, so that no one else on the network can take identities or pose as a replica.");
            }

            var options = new SequenceReplicaOptions
            {
                Id = replica,
                DataFolder = folder,
                Peers = parse.GetValue(peers) is { } list ? list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries) : [],
                SyncPeriod = TimeSpan.FromMilliseconds(parse.GetValue(period)),
                BlockSize = parse.GetValue(block),
                CounterRecordsPath = parse.GetValue(records),
                ClusterKey = key is null ? null : System.Text.Encoding.UTF8.GetBytes(key),
                Server = new PeerServerOptions
                {
                    Urls = [address],
                    BearerToken = token,
                    CertificatePath = parse.GetValue(certificate),
                    CertificatePassword = Environment.GetEnvironmentVariable("REPLICA_CERTIFICATE_PASSWORD"),
                },
                PeerClient = new PeerClientOptions { BearerToken = token },
            };
            return ServeAsync(options, parse.InvocationConfiguration.Output).GetAwaiter().GetResult();
        });
        return command;
    }

    private static bool IsLoopback(string address) =>
        Uri.TryCreate(address, UriKind.Absolute, out var uri) && (uri.IsLoopback || uri.Host == "127.0.0.1");

    private static async Task<int> ServeAsync(SequenceReplicaOptions options, TextWriter output)
    {
        using var stopping = new ServeCommand.Stopping();
        SequenceReplica replica;
        try
        {
            replica = await SequenceReplica.StartAsync(options, stopping.Stop).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or InvalidDataException or InvalidOperationException or ArgumentException)
        {
            output.WriteLine($"replica {options.Id} refused: {e.Message}");
            return 3;
        }

        await using (replica.ConfigureAwait(false))
        {
            output.WriteLine(AddressPrefix + replica.Address);
            output.WriteLine(ServerProcess.Ready);
            output.Flush();

            await stopping.UntilStoppedAsync().ConfigureAwait(false);
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"replica {replica.Id}: handed out {replica.HandedOutCount}, counter {replica.Counter}, reserved {replica.Reserved}, exchanges {replica.ExchangeCount}, failed {replica.FailedExchangeCount}, refused {replica.RefusalCount}"));
        }

        return 0;
    }
}
