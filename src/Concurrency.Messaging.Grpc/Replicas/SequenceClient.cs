using System.Buffers.Binary;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A client of a cluster of <see cref="SequenceReplica"/>s: asks one replica at a time (a <see cref="PeerClient"/> in
/// async mode each, so concurrent calls share its batches), and moves to the next replica when one does not answer within
/// <see cref="SequenceClientOptions.FailoverTimeout"/> or answers with an error. Every request carries the client's floor,
/// the largest identity it got or value it updated to, and the replica answers above it: a call that starts after another
/// returned gets a larger identity, whichever replica answers.
/// </summary>
/// <remarks>
/// A request that timed out on one replica may still be handled there after the client moved on: that replica then hands
/// out an identity nobody receives (the reply arrives after the client stopped waiting and is dropped). Both identities
/// are unique; the one dropped is a gap, never a repeat. Safe from any thread.
/// </remarks>
public sealed class SequenceClient : IAsyncDisposable
{
    private readonly string[] _addresses;
    private readonly SequenceClientOptions _options;
    private readonly PeerClient?[] _clients; // created on first use, under _clients' lock; disposed once
    private long _floor;   // the largest identity returned or value updated to: raised with compare-and-swap
    private int _current;  // the replica asked now; moved on failure with compare-and-swap, so that one failure moves it once
    private long _failovers;
    private int _disposed;

    private SequenceClient(string[] addresses, SequenceClientOptions options)
    {
        _addresses = addresses;
        _options = options;
        _clients = new PeerClient?[addresses.Length];
        _current = options.FirstReplica ?? Random.Shared.Next(addresses.Length);
    }

    /// <summary>Gets the replicas' addresses, in the order the client tries them.</summary>
    public IReadOnlyList<string> Addresses => _addresses;

    /// <summary>Gets the client's floor: the largest identity it received or value it updated to. Every later identity is larger.</summary>
    public long Floor => Volatile.Read(ref _floor);

    /// <summary>Gets the index in <see cref="Addresses"/> of the replica the client asks now.</summary>
    public int Current => Volatile.Read(ref _current);

    /// <summary>Gets how many times the client moved to another replica.</summary>
    public long FailoverCount => Interlocked.Read(ref _failovers);

    /// <summary>Creates a client; it connects on first use.</summary>
    /// <param name="addresses">The replicas' addresses (at least one).</param>
    /// <param name="options">Options, or null for the defaults.</param>
    /// <returns>The client. Dispose it.</returns>
    /// <exception cref="ArgumentException">No address, an invalid address, or an invalid option.</exception>
    public static SequenceClient Create(IEnumerable<string> addresses, SequenceClientOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(addresses);
        string[] list = [.. addresses];
        if (list.Length == 0)
        {
            throw new ArgumentException("A sequence client needs at least one replica's address.", nameof(addresses));
        }

        options ??= new SequenceClientOptions();
        options.Validate(list.Length);

        // Checked now, as a peer client would check it, so that a bad address fails here and not on a failover.
        options.PeerClient.Validate();
        foreach (var address in list)
        {
            PeerClient.CheckAddress(address, options.PeerClient, nameof(addresses));
        }

        return new SequenceClient(list, options);
    }

    /// <summary>Gets the next identity: larger than every identity this client received before this call.</summary>
    /// <param name="cancellationToken">Cancels the call (a request already sent may still be handled: its identity is then skipped).</param>
    /// <returns>The identity.</returns>
    /// <exception cref="SequenceUnavailableException">No replica answered, each within <see cref="SequenceClientOptions.FailoverTimeout"/>.</exception>
    /// <exception cref="ObjectDisposedException">The client was disposed.</exception>
    public async ValueTask<long> NextAsync(CancellationToken cancellationToken = default)
    {
        var reply = await AskAsync(ReplicaWire.Next, Floor, cancellationToken).ConfigureAwait(false);
        var identity = BinaryPrimitives.ReadInt64LittleEndian(reply.Payload.Span); // AskAsync checked it: 8 bytes, above the floor
        Raise(identity);
        return identity;
    }

    /// <summary>
    /// Raises the sequence to <paramref name="value"/>: every identity this client gets afterwards is larger, and every
    /// identity the replica that acknowledged it hands out afterwards is (durably); other replicas learn it with their next exchange.
    /// </summary>
    /// <param name="value">The value, 0 or more.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>A task that finishes once a replica acknowledged the update.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative.</exception>
    /// <exception cref="SequenceUnavailableException">No replica answered.</exception>
    public async ValueTask UpdateAsync(long value, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(value);
        await AskAsync(ReplicaWire.Update, value, cancellationToken).ConfigureAwait(false);
        Raise(value);
    }

    /// <summary>Closes the connections; calls still waiting fail.</summary>
    /// <returns>A task that finishes when every connection is closed.</returns>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 1)
        {
            return;
        }

        PeerClient?[] clients;
        lock (_clients)
        {
            clients = [.. _clients];
        }

        foreach (var client in clients)
        {
            if (client is not null)
            {
                await client.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    // One request: on the current replica, then each other one in turn, each for at most FailoverTimeout. An answer outside
    // the protocol (an identity not above the floor, a wrong type) counts as that replica failing: the client moves on
    // rather than hand its caller something that breaks its promise.
    private async Task<PeerMessage> AskAsync(string type, long value, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) == 1, this);
        var request = new PeerMessage(type, _options.Name, ReplicaWire.Int64(value));
        List<string>? failures = null;
        var index = Current;
        for (var attempt = 0; attempt < _addresses.Length; attempt++)
        {
            // The bound is the peer client's own delivery timeout, set to the failover timeout: its sweeper fails the
            // send, so a call costs no timer of its own.
            string? failure;
            try
            {
                var reply = await Client(index).SendAsync(request, cancellationToken).ConfigureAwait(false);
                failure = Check(type, value, reply);
                if (failure is null)
                {
                    return reply;
                }
            }
            catch (PeerDeliveryException) when (Volatile.Read(ref _disposed) == 1)
            {
                throw new ObjectDisposedException(nameof(SequenceClient), "The sequence client was disposed while the call waited.");
            }
            catch (PeerDeliveryException e) when (e.Reason == PeerDeliveryFailure.Timeout)
            {
                failure = $"no answer within {_options.FailoverTimeout.TotalMilliseconds:0} ms";
            }
            catch (Exception e) when (e is PeerDeliveryException or PeerRemoteException)
            {
                failure = e.Message;
            }

            (failures ??= []).Add($"{_addresses[index]}: {failure}");
            var next = (index + 1) % _addresses.Length;
            if (Interlocked.CompareExchange(ref _current, next, index) == index && _addresses.Length > 1)
            {
                Interlocked.Increment(ref _failovers);
            }

            index = next;
        }

        throw new SequenceUnavailableException($"No replica answered: {string.Join("; ", failures!)}");
    }

    // Null when the reply keeps the protocol, else what was wrong with it.
    private static string? Check(string type, long floor, PeerMessage reply) => (type, reply.Type) switch
    {
        (_, ReplicaWire.Error) => ReplicaWire.TextOf(reply),
        (ReplicaWire.Next, ReplicaWire.Identity) when ReplicaWire.TryInt64(reply.Payload, out var identity) && identity > floor => null,
        (ReplicaWire.Update, ReplicaWire.Updated) => null,
        _ => $"answered '{type}' with '{reply.Type}' ({reply.Payload.Length} bytes), not an answer of this protocol above the floor {floor}",
    };

    private PeerClient Client(int index)
    {
        if (Volatile.Read(ref _clients[index]) is { } client)
        {
            return client;
        }

        lock (_clients)
        {
            ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) == 1, this);
            return _clients[index] ??= PeerClient.Create(_addresses[index], _options.PeerClient with { DeliveryTimeout = _options.FailoverTimeout });
        }
    }

    private void Raise(long value)
    {
        var floor = Volatile.Read(ref _floor);
        while (value > floor)
        {
            var seen = Interlocked.CompareExchange(ref _floor, value, floor);
            if (seen == floor)
            {
                return;
            }

            floor = seen;
        }
    }
}
