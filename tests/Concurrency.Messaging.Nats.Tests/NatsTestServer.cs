using Concurrency.Benchmarks.CrossProcess;

namespace Concurrency.Messaging.Nats.Tests;

/// <summary>
/// A test's own <c>nats-server</c>: JetStream on, a temporary store, a free loopback port; killed and its store removed
/// when disposed. A test without the binary is skipped with the line that says how to get it.
/// </summary>
internal sealed class NatsTestServer : IDisposable
{
    private readonly string _store;

    private NatsTestServer(NatsServer server, string store)
    {
        Server = server;
        _store = store;
    }

    public NatsServer Server { get; }

    public string Url => Server.Url;

    /// <summary>Starts a server for this test, or skips the test where none is installed.</summary>
    public static NatsTestServer StartOrSkip()
    {
        var executable = NatsServer.Find();
        Assert.SkipWhen(executable is null, NatsServer.SkipLine);
        var store = Directory.CreateTempSubdirectory("nats-test-").FullName;
        return new NatsTestServer(NatsServer.Start(executable!, store), store);
    }

    /// <summary>A connection to this server that gives up reconnecting never, as a long-lived service's would.</summary>
    public NatsConnection Connect(string name) => new(NatsOpts.Default with { Url = Url, Name = name });

    public void Dispose()
    {
        Server.Dispose();
        try
        {
            Directory.Delete(_store, recursive: true);
        }
        catch (IOException)
        {
            // The server's files may linger a moment after its death; the temporary folder is the system's to clean.
        }
    }
}
