// Producer and consumer in two processes, through NATS JetStream: run with a server's URL as
//   dotnet run -- consume nats://127.0.0.1:4222      (first, in one terminal)
//   dotnet run -- produce nats://127.0.0.1:4222      (then, in another)
// or with no arguments, which starts a nats-server of its own (JetStream on, a temporary store, a free loopback port),
// runs the consumer as a child process and the producer here. Exits 1 if the consumer did not get every order once.
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Concurrency.Messaging.Nats;
using NATS.Client.Core;

const int Orders = 10_000;
var options = new NatsPipeOptions { Subject = "sample.orders", Delivery = NatsDelivery.JetStream, Group = "billing", ExpectedProducers = 1 };

switch (args)
{
    case ["consume", var url]:
        return await Consume(url);
    case ["produce", var url]:
        await Produce(url);
        return 0;
    case []:
        return await BothEnds();
    default:
        Console.Error.WriteLine("usage: [consume URL | produce URL]");
        return 2;
}

async Task<int> Consume(string url)
{
    #region package: nats consumer
    await using var connection = new NatsConnection(new NatsOpts { Url = url, Name = "billing" });
    long billed = 0, sum = 0;
    await using var consumer = await NatsPipe.StartConsumerAsync<string>(connection, options, order =>
    {
        billed++;
        sum += long.Parse(order.AsSpan("order ".Length), provider: null);
    });
    Console.WriteLine("ready"); // the subscription is in place at the server
    await consumer.Completion.WaitAsync(TimeSpan.FromMinutes(2));
    Console.WriteLine($"consumer: {consumer.Counts.Handled:N0} orders billed, {consumer.Counts.PossibleRepeats} possible repeats");
    #endregion
    return billed == Orders && sum == (long)Orders * (Orders + 1) / 2 ? 0 : 1;
}

async Task Produce(string url)
{
    #region package: nats producer
    await using var connection = new NatsConnection(new NatsOpts { Url = url, Name = "shop" });
    await using var producer = await NatsPipe.StartProducerAsync<string>(connection, options);
    for (var i = 1; i <= Orders; i++)
    {
        await producer.PostAsync($"order {i}"); // waits only while 256 publishes await the server's confirmation
    }

    await producer.CompleteAsync(); // every order confirmed stored, then the end marker
    Console.WriteLine($"producer: {producer.Confirmed:N0} orders stored, {producer.Resends} resent");
    #endregion
}

async Task<int> BothEnds()
{
    // Debian's package installs to /usr/sbin, which an ordinary user's PATH may lack.
    var executable = (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Append("/usr/sbin")
        .Select(folder => Path.Combine(folder, "nats-server")).FirstOrDefault(File.Exists);
    if (executable is null)
    {
        Console.WriteLine("nats sample: nats-server is not installed (apt-get install nats-server); nothing to show.");
        return 0;
    }

    int port;
    using (var probe = new TcpListener(IPAddress.Loopback, 0))
    {
        probe.Start();
        port = ((IPEndPoint)probe.LocalEndpoint).Port;
    }

    var store = Directory.CreateTempSubdirectory("sample-nats-").FullName;
    using var server = Process.Start(new ProcessStartInfo(executable, ["-a", "127.0.0.1", "-p", $"{port}", "-js", "-sd", store]) { RedirectStandardError = true, RedirectStandardOutput = true })!;
    server.BeginErrorReadLine();
    server.BeginOutputReadLine();
    var url = $"nats://127.0.0.1:{port}";
    try
    {
        // The consumer is this program again, in a process of its own.
        var host = Environment.ProcessPath!;
        var start = Path.GetFileNameWithoutExtension(host) == "dotnet"
            ? new ProcessStartInfo(host, [Environment.GetCommandLineArgs()[0], "consume", url]) // dotnet Concurrency.Samples.Nats.dll
            : new ProcessStartInfo(host, ["consume", url]);                                      // the app host
        start.RedirectStandardOutput = true;
        using var consumer = Process.Start(start)!;
        var output = new StringBuilder();
        if (await consumer.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(60)) != "ready")
        {
            Console.WriteLine("nats sample: the consumer did not start");
            return 1;
        }

        await Produce(url);
        output.Append(await consumer.StandardOutput.ReadToEndAsync().WaitAsync(TimeSpan.FromMinutes(2)));
        await consumer.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(2));
        Console.Write(output);
        return consumer.ExitCode;
    }
    finally
    {
        server.Kill();
        await server.WaitForExitAsync();
        Directory.Delete(store, recursive: true);
    }
}
