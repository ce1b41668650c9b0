using NATS.Client.Core;
using NATS.Client.JetStream;
using NATS.Client.KeyValueStore;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// One key of a JetStream key-value bucket read as a 64-bit count that only moves forward, by compare-and-set on the
/// key's revision: the one mechanism under <see cref="NatsKvSequence"/> (steps of one) and <see cref="NatsKvBlocks"/>
/// (steps of a block). Any number of callers, in any number of processes, may advance the same key at once: the server
/// takes one write per revision and refuses the others, which read again and retry, so every step owns a range of the
/// count that no other step owns.
/// </summary>
/// <remarks>
/// The key holds the count as UTF-8 decimal text (what <c>nats kv get</c> shows); a missing key counts as 0. A deleted
/// key is refused rather than started again at 0, since starting again would hand out identities already handed out
/// (a key whose delete marker was purged as well reads as never written: no client can tell).
/// Every attempt (a read and its write; the connection and the bucket's set-up) is bounded by <see cref="CallTimeout"/>
/// as well as by the caller's token.
/// </remarks>
internal sealed class NatsKvCounter
{
    /// <summary>The longest one attempt (a read and its write; the connection and the bucket's set-up) may take before it counts as silence.</summary>
    public static readonly TimeSpan CallTimeout = TimeSpan.FromSeconds(10);

    /// <summary>JetStream's "stream name already in use with a different configuration".</summary>
    private const int StreamNameInUse = 10058;

    /// <summary>JetStream's "subjects overlap with an existing stream": what 2.9.10 answers a creator that lost a race to another.</summary>
    private const int SubjectsOverlap = 10065;

    private readonly INatsKVStore _store;
    private readonly string _key;

    // Writes refused because another caller moved the key first; Interlocked, read by anyone at any time.
    private long _conflicts;

    private NatsKvCounter(INatsKVStore store, string key)
    {
        _store = store;
        _key = key;
    }

    /// <summary>Gets how many writes lost to another caller's write (or creation) of the key and were tried again.</summary>
    public long Conflicts => Interlocked.Read(ref _conflicts);

    /// <summary>
    /// Connects <paramref name="connection"/> if it is not yet, creates the bucket if it is missing (file storage, history
    /// 1: only the count's latest value is kept) or opens it as it is, and returns the counter on <paramref name="key"/>.
    /// Racing openers are safe: the server takes a second creation with the same configuration, or refuses it as a name
    /// in use or as subjects overlapping (2.9.10, about one creator in 500 when eight race), and then the bucket opens as it is.
    /// </summary>
    /// <exception cref="TimeoutException">The server did not answer within <see cref="CallTimeout"/>.</exception>
    /// <exception cref="NatsJSApiException">The server refused the bucket (is JetStream on, <c>nats-server -js</c>?).</exception>
    public static async Task<NatsKvCounter> OpenAsync(INatsConnection connection, string bucket, string key, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(connection);
        ArgumentException.ThrowIfNullOrEmpty(bucket);
        ArgumentException.ThrowIfNullOrEmpty(key);
        using var bound = Bound(cancellationToken);
        try
        {
            await connection.ConnectAsync().AsTask().WaitAsync(bound.Token).ConfigureAwait(false);
            var context = new NatsKVContext(new NatsJSContext(connection));
            var config = new NatsKVConfig(bucket) { Storage = NatsKVStorageType.File, History = 1 };
            INatsKVStore store;
            try
            {
                store = await context.CreateStoreAsync(config, bound.Token).ConfigureAwait(false);
            }
            catch (NatsJSApiException e) when (e.Error.ErrCode is StreamNameInUse or SubjectsOverlap)
            {
                // Made meanwhile by a racing opener, or before with another configuration (a longer history, say):
                // compare-and-set works on it all the same. A stream of another name on these subjects is not found here.
                store = await context.GetStoreAsync(bucket, bound.Token).ConfigureAwait(false);
            }

            return new NatsKvCounter(store, key);
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            throw Silence($"open the bucket '{bucket}'", e);
        }
    }

    /// <summary>
    /// Moves the key from its value v to v + <paramref name="step"/> with compare-and-set, reading and trying again as
    /// long as another caller's write comes first, and returns v + <paramref name="step"/>: this call owns
    /// v + 1 .. v + <paramref name="step"/>, and no other call on this key, in any process, owns any of them.
    /// </summary>
    /// <exception cref="TimeoutException">One attempt got no answer within <see cref="CallTimeout"/>.</exception>
    /// <exception cref="InvalidOperationException">The key was deleted, or holds something other than a count.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public async Task<long> AdvanceAsync(long step, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(step);
        while (true)
        {
            // Each attempt has a bound of its own: under contention a caller may lose many rounds, each answered promptly.
            using var bound = Bound(cancellationToken);
            try
            {
                var (value, revision) = await ReadAsync(bound.Token).ConfigureAwait(false);
                var next = checked(value + step);

                // Revision 0 creates the key only where nothing was ever written to it: CreateAsync would also write over
                // a deleted key, starting the count again, so a key deleted between our read and this write must lose here.
                await _store.UpdateAsync(_key, next, revision, cancellationToken: bound.Token).ConfigureAwait(false);
                return next;
            }
            catch (NatsKVWrongLastRevisionException)
            {
                // Another caller wrote (or created) the key since our read: what we read is gone, read again.
                Interlocked.Increment(ref _conflicts);
            }
            catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
            {
                throw Silence($"move the key '{_key}' of the bucket '{_store.Bucket}'", e);
            }
        }
    }

    /// <summary>The key's count and revision now; (0, 0) where the key was never written.</summary>
    private async Task<(long Value, ulong Revision)> ReadAsync(CancellationToken cancellationToken)
    {
        var read = await _store.TryGetEntryAsync<long>(_key, cancellationToken: cancellationToken).ConfigureAwait(false);
        if (read.Success)
        {
            var entry = read.Value;
            if (entry.Error is { } error)
            {
                throw new InvalidOperationException($"The key '{_key}' of the bucket '{_store.Bucket}' holds something other than a count.", error);
            }

            return (entry.Value, entry.Revision);
        }

        return read.Error switch
        {
            NatsKVKeyNotFoundException => (0, 0),
            NatsKVKeyDeletedException => throw new InvalidOperationException(
                $"The key '{_key}' of the bucket '{_store.Bucket}' was deleted: counting again from 0 would hand out identities already handed out."),
            var error => throw new InvalidOperationException($"The key '{_key}' of the bucket '{_store.Bucket}' could not be read: {error.Message}", error),
        };
    }

    private static CancellationTokenSource Bound(CancellationToken cancellationToken)
    {
        var bound = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bound.CancelAfter(CallTimeout);
        return bound;
    }

    private static TimeoutException Silence(string what, Exception inner)
        => new($"The NATS server did not {what} within {CallTimeout.TotalSeconds:0.#} s.", inner);
}
