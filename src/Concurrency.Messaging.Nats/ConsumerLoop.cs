using NATS.Client.Core;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// The loop behind a <see cref="NatsPipeConsumer{T}"/>: what both modes share (the handler, the producers, the counts,
/// the stop and the completion), under each mode's own loop (<see cref="CoreConsumerLoop{T}"/>,
/// <see cref="JetStreamConsumerLoop{T}"/>).
/// </summary>
/// <remarks>
/// Concurrency rule: one loop task hands messages to the handler, one at a time, and writes the counts (plain writes,
/// <see cref="Volatile"/> for the readers of <see cref="Counts"/>); the malformed count alone has a second writer (the
/// JetStream end markers' reader) and is incremented with <see cref="Interlocked"/>.
/// </remarks>
/// <typeparam name="T">The message type.</typeparam>
internal abstract class ConsumerLoop<T> : IDisposable
{
    private readonly Func<T, CancellationToken, ValueTask> _handler;
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);

    // The loops' shared state: fields, so that a loop writes its counts with Volatile.Write(ref ...).
    private protected readonly NatsConnection _connection;
    private protected readonly NatsPipeOptions _options;
    private protected readonly CancellationTokenSource _stop = new();   // StopAsync, disposal: every wait ends
    private protected readonly ProducerBook _book;                      // the producers and their end markers
    private protected long _handled;         // this and the counts below: written by the loop only, read by Counts
    private protected long _lost;
    private protected long _repeats;
    private protected long _possibleRepeats;
    private protected long _malformed;       // Interlocked: the JetStream markers' reader counts malformed markers too
    private protected long _refused;
    private protected long _unhandled;

    private protected ConsumerLoop(NatsConnection connection, NatsPipeOptions options, Func<T, CancellationToken, ValueTask> handler)
    {
        _connection = connection;
        _options = options;
        _handler = handler;
        _book = new ProducerBook(options);
    }

    /// <summary>Gets the consumer's completion (see <see cref="NatsPipeConsumer{T}.Completion"/>).</summary>
    public Task Completion => _completion.Task;

    /// <summary>Gets what the consumer has seen so far; final once <see cref="Completion"/> has finished.</summary>
    public NatsPipeCounts Counts => new()
    {
        Handled = Volatile.Read(ref _handled),
        Lost = Volatile.Read(ref _lost),
        Repeats = Volatile.Read(ref _repeats),
        PossibleRepeats = Volatile.Read(ref _possibleRepeats),
        Malformed = Volatile.Read(ref _malformed),
        Refused = Volatile.Read(ref _refused),
        Unhandled = Volatile.Read(ref _unhandled),
        Producers = _book.Counts(),
    };

    /// <summary>The loop: runs until the expected producers ended, the consumer is stopped, or it fails; then completes.</summary>
    public abstract Task RunAsync();

    /// <summary>Stops the loop: every wait ends, the message being handled finishes.</summary>
    public Task StopAsync() => _stop.CancelAsync();

    /// <summary>Releases the stop's token; once the loop has ended.</summary>
    public void Dispose() => _stop.Dispose();

    private protected void Complete(Exception? failure)
    {
        if (failure is null)
        {
            _completion.TrySetResult();
        }
        else
        {
            _completion.TrySetException(failure);
        }
    }

    /// <summary>An end marker (see <see cref="ProducerBook.OnEnd"/>); anything else on the end subject is malformed.</summary>
    private protected void OnEnd(Incoming<T> marker, ulong stored)
    {
        if (marker.Kind != EnvelopeKind.End)
        {
            Interlocked.Increment(ref _malformed);
            return;
        }

        _book.OnEnd(marker.Producer, marker.Sequence, stored);
    }

    private protected async ValueTask Handle(T message)
    {
        try
        {
            await _handler(message, _stop.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (_stop.IsCancellationRequested)
        {
            throw; // stopping: the handler gave up its message as asked (JetStream: unacknowledged, delivered again)
        }
        catch (Exception e)
        {
            throw new HandlerFault(e);
        }
    }

    /// <summary>The handler threw: carries its exception out of the loop.</summary>
    private protected sealed class HandlerFault(Exception inner) : Exception("The handler threw.", inner);
}
