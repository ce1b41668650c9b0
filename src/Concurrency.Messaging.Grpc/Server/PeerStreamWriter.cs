using System.Threading.Channels;
using Concurrency.Messaging.Grpc.Protocol;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The write side of one <see cref="PeerStream"/>: a bounded queue of reply batches (<see cref="PeerServerOptions.MaxQueuedBatches"/>),
/// the write loop that empties it, merging queued batches up to the batch limits into one write, and the inline write
/// that lets the stream's reader write its own answer when the loop has nothing queued (a thread hop saved per round trip).
/// </summary>
/// <remarks>
/// One writer at a time holds <see cref="_writeLock"/>: the write loop while it empties the queue, or the reader writing
/// its inline answer while the queue is empty. The loop takes the lock before it reads anything out of the queue, so an
/// inline write never overtakes a reply queued before it, and replies go out in the order they were made. A failed write
/// (<see cref="WriterGone"/>) closes the queue and stops the stream; the replies stay remembered in the session.
/// </remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The write lock is never asked for a wait handle, so it holds nothing to dispose.")]
internal sealed class PeerStreamWriter
{
    private readonly PeerServerState _state;
    private readonly PeerResponseWriter _responseStream;

    // The stream's stop, cancelled here when a write fails: the reader and the answer loop then stop handling what nobody
    // will read.
    private readonly CancellationTokenSource _stopSource;
    private readonly CancellationToken _stop;

    // Written by the stream's reader and answer loop (and the heartbeat timer), read by the write loop and, while it is
    // empty, by the inline writer under _writeLock.
    private readonly Channel<Outgoing> _replies;

    // See the class remarks.
    private readonly SemaphoreSlim _writeLock = new(1, 1);
    private readonly Task _writing;

    public PeerStreamWriter(PeerServerState state, PeerResponseWriter responseStream, CancellationTokenSource stop)
    {
        _state = state;
        _responseStream = responseStream;
        _stopSource = stop;
        _stop = stop.Token;
        _replies = Channel.CreateBounded<Outgoing>(new BoundedChannelOptions(state.Options.MaxQueuedBatches) { SingleReader = true });
        _writing = WriteLoopAsync();
    }

    /// <summary>Queues a reply batch if there is room; false when the queue is full or closed.</summary>
    public bool TryQueue(Outgoing outgoing) => _replies.Writer.TryWrite(outgoing);

    /// <summary>Queues a reply batch, waiting for room; throws <see cref="ChannelClosedException"/> once the writer is gone.</summary>
    public ValueTask QueueAsync(Outgoing outgoing) => _replies.Writer.WriteAsync(outgoing, _stop);

    /// <summary>
    /// The reader, answering inline: writes <paramref name="answers"/> itself when the write loop is idle and nothing is
    /// queued for it, which saves the hand-off to the loop (a thread-pool wake-up per batch). False, having written
    /// nothing, when the loop holds the write lock or has replies queued: the caller queues behind them.
    /// </summary>
    public async ValueTask<bool> TryWriteInlineAsync(List<Outgoing> answers)
    {
        if (!_writeLock.Wait(0))
        {
            return false;
        }

        try
        {
            if (_stop.IsCancellationRequested)
            {
                return true; // a write failed (WriterGone) or the stream is ending: write nothing after it; the replies are remembered
            }

            if (_replies.Reader.Count > 0)
            {
                return false;
            }

            foreach (var outgoing in answers)
            {
                await WriteBatchAsync(outgoing.Batch).ConfigureAwait(false);
            }
        }
#pragma warning disable CA1031 // The client is gone; its next stream gets the remembered replies.
        catch (Exception)
#pragma warning restore CA1031
        {
            WriterGone();
        }
        finally
        {
            _writeLock.Release();
        }

        return true;
    }

    /// <summary>After the last reply is queued: returns when the write loop has written it (or the client is gone).</summary>
    public Task CompleteAsync()
    {
        _replies.Writer.TryComplete();
        return _writing;
    }

    // Writes what is queued, merging it up to the batch limits into one write, under the write lock. A failed write (the
    // client went away, did not read within the write timeout, or moved to a newer stream) ends the loop; the replies are
    // remembered in the session for the client's next stream.
    private async Task WriteLoopAsync()
    {
        await Task.Yield();
        var replies = _replies.Reader;
        try
        {
            while (await replies.WaitToReadAsync().ConfigureAwait(false))
            {
                await _writeLock.WaitAsync().ConfigureAwait(false);
                try
                {
                    while (replies.TryRead(out var outgoing))
                    {
                        var batch = outgoing.Batch;
                        if (batch.Envelopes.Count > 0 && batch.Envelopes.Count < _state.Options.MaxBatchCount)
                        {
                            Merge(outgoing, replies);
                        }

                        await WriteBatchAsync(batch).ConfigureAwait(false);
                    }
                }
                finally
                {
                    _writeLock.Release();
                }
            }
        }
#pragma warning disable CA1031 // The client is gone; its next stream gets the remembered replies.
        catch (Exception)
#pragma warning restore CA1031
        {
            WriterGone();
            while (replies.TryRead(out _))
            {
            }
        }
    }

    // Under the write lock.
    private async ValueTask WriteBatchAsync(PeerBatch batch)
    {
        await _responseStream.WriteAsync(batch).ConfigureAwait(false);
        _state.Meter.Sent(batch.Envelopes.Count);
    }

    // A write failed: the client is gone, or was cut off (see PeerResponseWriter). The queue is closed first, so that a
    // wait for room in it ends instead of waiting for a writer that is gone; and the stream is stopped, so that the reader
    // and the answer loop do not go on handling what nobody will read.
    private void WriterGone()
    {
        _replies.Writer.TryComplete();
        try
        {
            _stopSource.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // The call is over already.
        }
    }

    // Adds the queued batches that fit into the first (which this stream made, so it may be changed).
    private void Merge(Outgoing first, ChannelReader<Outgoing> replies)
    {
        var bytes = first.Bytes;
        while (replies.TryPeek(out var next)
            && first.Batch.Envelopes.Count + next.Batch.Envelopes.Count <= _state.Options.MaxBatchCount
            && bytes + next.Bytes <= _state.Options.MaxBatchBytes)
        {
            replies.TryRead(out _);
            first.Batch.Envelopes.AddRange(next.Batch.Envelopes);
            first.Batch.Heartbeat |= next.Batch.Heartbeat;
            bytes += next.Bytes;
        }
    }

    /// <summary>A reply batch on its way to the writer, with an upper bound of its bytes.</summary>
    public readonly record struct Outgoing(PeerBatch Batch, int Bytes);
}
