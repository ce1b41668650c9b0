using System.CommandLine;
using Concurrency.Benchmarks.Backbone.Runs;
using Concurrency.Benchmarks.CrossProcess;
using Concurrency.Messaging.Grpc;
using NATS.Client.Core;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// <c>-- kv-replica --nats URL --listen URL [--block N]</c> (hidden): the yardstick of <c>lab replicas</c> that production
/// systems use, serving the same clients over the same transport as a replica: a <see cref="PeerServer"/> whose handler
/// hands out identities from blocks reserved with compare-and-set on one key of a JetStream key-value bucket
/// (<see cref="NatsKvBlocks"/>). It answers <c>next</c> with <c>id</c> as a replica does (the client's floor is not
/// needed: the blocks are one strongly consistent sequence). Prints "address URL" and "ready"; serves until standard
/// input closes.
/// </summary>
internal static class KvReplicaCommand
{
    public const string Name = "kv-replica";

    public static Command Create()
    {
        var nats = new Option<string>("--nats") { Required = true, HelpName = "URL", Description = "the NATS server (JetStream on)" };
        var listen = new Option<string>("--listen") { HelpName = "URL", DefaultValueFactory = _ => "http://127.0.0.1:0", Description = "where to listen" };
        var block = CommonOptions.WholeNumber("--block", "N", NatsKvBlocks.DefaultBlockSize, 1, 1 << 30, "identities per reservation");
        var command = new Command(Name, "The key-value block yardstick of lab replicas (started by it).") { nats, listen, block };
        command.Hidden = true;
        command.SetAction(parse => ServeAsync(parse.GetValue(nats)!, parse.GetValue(listen)!, parse.GetValue(block), parse.InvocationConfiguration.Output).GetAwaiter().GetResult());
        return command;
    }

    private static async Task<int> ServeAsync(string natsUrl, string listen, int block, TextWriter output)
    {
        using var stopping = new ServeCommand.Stopping();
        await using var connection = new NatsConnection(new NatsOpts { Url = natsUrl, Name = "lab-kv-replica" });
        await using var blocks = await NatsKvBlocks.OpenAsync(connection, ReplicaLoadCommand.NatsKvBucket, ReplicaLoadCommand.NatsKvKey, block, stopping.Stop).ConfigureAwait(false);
        await using var server = await PeerServer.StartAsync(new PeerServerOptions
        {
            Urls = [listen],
            Handler = async (request, cancellationToken) =>
            {
                if (request.Type != "next")
                {
                    return new PeerMessage("error", "kv-replica", System.Text.Encoding.UTF8.GetBytes($"The key-value yardstick answers next only, not '{request.Type}'."));
                }

                var identity = await blocks.NextAsync(cancellationToken).ConfigureAwait(false);
                return new PeerMessage("id", "kv-replica", BitConverter.GetBytes(identity));
            },
        }, stopping.Stop).ConfigureAwait(false);
        output.WriteLine(ReplicaCommand.AddressPrefix + server.Address);
        output.WriteLine(ServerProcess.Ready);
        output.Flush();
        await stopping.UntilStoppedAsync().ConfigureAwait(false);
        output.WriteLine($"kv-replica: {blocks.Reservations} reservations, {blocks.Conflicts} conflicts");
        return 0;
    }
}
