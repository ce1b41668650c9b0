using Concurrency.Benchmarks.CrossProcess.ProtoRemote;
using Proto;
using Proto.Remote;
using Proto.Remote.GrpcNet;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>An actor system with Proto.Remote on host:port and one actor, <see cref="EchoActor"/>, that answers each <see cref="EchoRequest"/> with the same number and payload.</summary>
internal sealed class ProtoRemoteEchoServer : IAsyncDisposable
{
    public const string EchoActor = "echo";

    private readonly ActorSystem _system;

    private ProtoRemoteEchoServer(ActorSystem system, string host, int port)
    {
        _system = system;
        Host = host;
        Port = port;
    }

    public string Host { get; }

    public int Port { get; }

    public static async Task<ProtoRemoteEchoServer> StartAsync(string host, int port, CancellationToken cancellationToken)
    {
        var system = new ActorSystem().WithRemote(RemoteConfig.BindTo(host, port).WithProtoMessages(ProtoRemoteEchoReflection.Descriptor));
        await system.Remote().StartAsync().WaitAsync(cancellationToken).ConfigureAwait(false);
        system.Root.SpawnNamed(
            Props.FromFunc(context =>
            {
                if (context.Message is EchoRequest request)
                {
                    context.Respond(new EchoReply { Number = request.Number, Payload = request.Payload });
                }

                return Task.CompletedTask;
            }),
            EchoActor);
        var bound = system.Address[(system.Address.LastIndexOf(':') + 1)..];
        return new ProtoRemoteEchoServer(system, host, int.Parse(bound, System.Globalization.CultureInfo.InvariantCulture));
    }

    public async ValueTask DisposeAsync()
    {
        await _system.Remote().ShutdownAsync().ConfigureAwait(false);
        await _system.ShutdownAsync().ConfigureAwait(false);
    }
}
