using System.Net;
using System.Net.Sockets;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// A TCP relay on loopback between a client and a server, to break connections the way networks do: <see cref="Reset"/>
/// cuts every open connection (the "connection reset" case); <see cref="Freeze"/> stops forwarding on every open
/// connection but keeps its sockets open (the half-open case: the far machine gone, reads that never return).
/// Connections made after either are relayed normally, unless <see cref="Refusing"/> is set (the network down: each new
/// connection is cut as soon as it is made).
/// </summary>
internal sealed class LoopbackProxy : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly IPEndPoint _target;
    private readonly CancellationTokenSource _stop = new();
    private readonly Lock _gate = new();

    // Guarded by _gate: the relays open now.
    private readonly List<Relay> _relays = [];
    private readonly Task _accepting;

    public LoopbackProxy(Uri target)
    {
        _target = new IPEndPoint(IPAddress.Parse(target.Host), target.Port);
        _listener.Start();
        _accepting = AcceptAsync();
    }

    public Uri Address => new($"http://127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}");

    public int Accepted { get; private set; }

    // Set by the test thread, read by the accept loop.
    private volatile bool _refusing;

    /// <summary>Gets or sets whether new connections are cut at once instead of relayed.</summary>
    public bool Refusing
    {
        get => _refusing;
        set => _refusing = value;
    }

    public void Reset()
    {
        foreach (var relay in Take())
        {
            relay.Reset();
        }
    }

    public void Freeze()
    {
        lock (_gate)
        {
            foreach (var relay in _relays)
            {
                relay.Frozen = true;
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Stop();
        foreach (var relay in Take())
        {
            relay.Reset();
        }

        await _accepting.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        _stop.Dispose();
    }

    private List<Relay> Take()
    {
        lock (_gate)
        {
            var all = _relays.ToList();
            _relays.Clear();
            return all;
        }
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            var client = await _listener.AcceptSocketAsync(_stop.Token);
            if (Refusing)
            {
                client.LingerState = new LingerOption(true, 0);
                client.Close();
                continue;
            }

            var server = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            try
            {
                await server.ConnectAsync(_target, _stop.Token);
            }
            catch (SocketException)
            {
                client.Dispose();
                server.Dispose();
                continue;
            }

            var relay = new Relay(client, server);
            lock (_gate)
            {
                _relays.Add(relay);
                Accepted++;
            }

            relay.Start();
        }
    }

    private sealed class Relay(Socket client, Socket server)
    {
        // Set by the test thread, read by the two copy loops before each write.
        private volatile bool _frozen;

        public bool Frozen
        {
            get => _frozen;
            set => _frozen = value;
        }

        public void Start()
        {
            _ = CopyAsync(client, server);
            _ = CopyAsync(server, client);
        }

        public void Reset()
        {
            foreach (var socket in new[] { client, server })
            {
                try
                {
                    socket.LingerState = new LingerOption(true, 0);
                    socket.Close();
                }
                catch (ObjectDisposedException)
                {
                }
            }
        }

        private async Task CopyAsync(Socket from, Socket to)
        {
            var buffer = new byte[64 * 1024];
            try
            {
                while (true)
                {
                    var read = await from.ReceiveAsync(buffer, SocketFlags.None);
                    if (read == 0)
                    {
                        to.Shutdown(SocketShutdown.Send);
                        return;
                    }

                    if (_frozen)
                    {
                        // Half-open: swallow everything from now on, never answer, never close.
                        continue;
                    }

                    await to.SendAsync(buffer.AsMemory(0, read), SocketFlags.None);
                }
            }
            catch (Exception error) when (error is SocketException or ObjectDisposedException)
            {
                Reset();
            }
        }
    }
}
