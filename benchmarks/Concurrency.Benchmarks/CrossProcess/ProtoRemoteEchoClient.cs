using System.Diagnostics;
using Concurrency.Benchmarks.CrossProcess.ProtoRemote;
using Google.Protobuf;
using Proto;
using Proto.Remote;
using Proto.Remote.GrpcNet;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// A Proto.Remote client of <see cref="ProtoRemoteEchoServer"/>, in an actor system of its own on loopback: sends numbered
/// messages, counts the replies and sums their numbers, and throws unless each came back exactly once.
/// </summary>
internal static class ProtoRemoteEchoClient
{
    public static async Task<EchoRunResult> RunAsync(string host, int port, ProtoRemoteSendMode mode, int messages, int senders, int payloadBytes, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var system = new ActorSystem().WithRemote(RemoteConfig.BindToLocalhost().WithProtoMessages(ProtoRemoteEchoReflection.Descriptor));
        await system.Remote().StartAsync().WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var echo = PID.FromAddress($"{host}:{port}", ProtoRemoteEchoServer.EchoActor);
            var payload = ByteString.CopyFrom(new byte[payloadBytes]);

            // One round trip first: the connection is open before the clock starts.
            await system.Root.RequestAsync<EchoReply>(echo, new EchoRequest { Number = -1, Payload = payload }, cancellationToken).WaitAsync(timeout, cancellationToken).ConfigureAwait(false);
            var start = Stopwatch.GetTimestamp();
            var (count, sum) = mode == ProtoRemoteSendMode.Request
                ? await RequestAsync(system, echo, payload, messages, senders, cancellationToken).WaitAsync(timeout, cancellationToken).ConfigureAwait(false)
                : await TellAsync(system, echo, payload, messages, senders).WaitAsync(timeout, cancellationToken).ConfigureAwait(false);
            var elapsed = Stopwatch.GetElapsedTime(start);
            var expected = (long)messages * (messages - 1) / 2;
            if (count != messages || sum != expected)
            {
                throw new InvalidOperationException($"Proto.Remote {mode}: {count:N0} replies summing to {sum:N0}; expected {messages:N0} summing to {expected:N0}.");
            }

            return new EchoRunResult(count, elapsed, sum);
        }
        finally
        {
            await system.Remote().ShutdownAsync().ConfigureAwait(false);
            await system.ShutdownAsync().ConfigureAwait(false);
        }
    }

    private static async Task<(long Count, long Sum)> RequestAsync(ActorSystem system, PID echo, ByteString payload, int messages, int senders, CancellationToken cancellationToken)
    {
        var next = -1L;
        var results = await Task.WhenAll(Enumerable.Range(0, senders).Select(_ => Task.Run(
            async () =>
            {
                long count = 0, sum = 0;
                for (var number = Interlocked.Increment(ref next); number < messages; number = Interlocked.Increment(ref next))
                {
                    var reply = await system.Root.RequestAsync<EchoReply>(echo, new EchoRequest { Number = number, Payload = payload }, cancellationToken).ConfigureAwait(false);
                    count++;
                    sum += reply.Number;
                }

                return (count, sum);
            },
            cancellationToken))).ConfigureAwait(false);
        return (results.Sum(r => r.count), results.Sum(r => r.sum));
    }

    private static Task<(long Count, long Sum)> TellAsync(ActorSystem system, PID echo, ByteString payload, int messages, int window)
    {
        var done = new TaskCompletionSource<(long, long)>(TaskCreationOptions.RunContinuationsAsynchronously);
        long sent = 0, count = 0, sum = 0;

        // The actor's state is touched by the actor only, one message at a time.
        var client = system.Root.Spawn(Props.FromFunc(context =>
        {
            switch (context.Message)
            {
                case Started:
                    for (; sent < Math.Min(window, messages); sent++)
                    {
                        context.Request(echo, new EchoRequest { Number = sent, Payload = payload });
                    }

                    break;
                case EchoReply reply:
                    count++;
                    sum += reply.Number;
                    if (sent < messages)
                    {
                        context.Request(echo, new EchoRequest { Number = sent++, Payload = payload });
                    }
                    else if (count == messages)
                    {
                        done.TrySetResult((count, sum));
                    }

                    break;
            }

            return Task.CompletedTask;
        }));
        return done.Task.ContinueWith(
            task =>
            {
                system.Root.Stop(client);
                return task.Result;
            },
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
    }
}
