using NATS.Client.Core;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// A strongly consistent identity sequence on one key of a JetStream key-value bucket, the plainest yardstick for the
/// replicated identity services: each <see cref="NextAsync"/> reads the key's value and revision and writes value + 1 on
/// that revision (compare-and-set), reading again whenever another caller's write came first. Identities start at 1,
/// never repeat across any number of instances and processes on the key, and each caller sees its own increase; every
/// identity costs at least two round trips to the server, and contention costs retries (<see cref="Conflicts"/>).
/// </summary>
/// <remarks>
/// Thread-safe: any number of callers may call <see cref="NextAsync"/> at once. The connection stays the caller's:
/// disposing the sequence cancels its calls in flight and refuses later ones, and leaves the connection open.
/// </remarks>
internal sealed class NatsKvSequence : IAsyncDisposable
{
    private readonly NatsKvCounter _counter;

    // Cancelled once, by DisposeAsync: ends the calls in flight. Its token is read by any caller.
    private readonly CancellationTokenSource _stopping = new();

    // 0 while open, 1 once DisposeAsync began; Interlocked.
    private int _disposed;

    private NatsKvSequence(NatsKvCounter counter) => _counter = counter;

    /// <summary>Gets how many writes lost to another caller's and were tried again, in this instance.</summary>
    public long Conflicts => _counter.Conflicts;

    /// <summary>
    /// Opens the sequence kept on <paramref name="key"/> of <paramref name="bucket"/>, connecting
    /// <paramref name="connection"/> if it is not yet and creating the bucket if it is missing (file storage, history 1).
    /// </summary>
    /// <exception cref="TimeoutException">The server did not answer within <see cref="NatsKvCounter.CallTimeout"/>.</exception>
    public static async Task<NatsKvSequence> OpenAsync(INatsConnection connection, string bucket, string key, CancellationToken cancellationToken)
        => new(await NatsKvCounter.OpenAsync(connection, bucket, key, cancellationToken).ConfigureAwait(false));

    /// <summary>Returns the next identity: the key's value after this call moved it up by one.</summary>
    /// <exception cref="TimeoutException">One server round got no answer within <see cref="NatsKvCounter.CallTimeout"/>.</exception>
    /// <exception cref="ObjectDisposedException">The sequence was disposed, before or during the call.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public async ValueTask<long> NextAsync(CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _stopping.Token);
        try
        {
            return await _counter.AdvanceAsync(1, linked.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            throw new ObjectDisposedException($"The {nameof(NatsKvSequence)} was disposed while this call was in flight.", e);
        }
    }

    /// <summary>Cancels the calls in flight (they end with <see cref="ObjectDisposedException"/>); later calls are refused.</summary>
    public ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _stopping.Cancel();
            _stopping.Dispose();
        }

        return ValueTask.CompletedTask;
    }
}
