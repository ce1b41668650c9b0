using Concurrency.Messaging.Pipes;
using NATS.Client.Core;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// A Core consumer's loop: reads its data and end-marker subscriptions, hands each message over at most once, and (with a
/// subscription of its own) reports every gap in a producer's sequence numbers as lost (see <see cref="NatsPipeConsumer{T}"/>).
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
internal sealed class CoreConsumerLoop<T>(NatsConnection connection, NatsPipeOptions options, Func<T, CancellationToken, ValueTask> handler, INatsSub<Incoming<T>> data, INatsSub<Incoming<T>> ends)
    : ConsumerLoop<T>(connection, options, handler)
{
    public override async Task RunAsync()
    {
        Exception? failure = null;
        Task<bool>? dataWait = null, endWait = null; // kept across idle turns: a wait left over is reused, not piled up
        try
        {
            while (true)
            {
                while (data.Msgs.TryRead(out var message))
                {
                    await OnCoreAsync(message.Data).ConfigureAwait(false);
                }

                var ended = false;
                while (ends.Msgs.TryRead(out var end))
                {
                    OnEnd(end.Data, stored: ulong.MaxValue);
                    ended = true;
                }

                if (ended)
                {
                    // Whatever the producer sent before its marker reached this connection before the marker did, so it
                    // is in the data subscription now: drain it before deciding anything.
                    continue;
                }

                if (_book.AllEnded)
                {
                    FinishCore();
                    break;
                }

                dataWait ??= data.Msgs.WaitToReadAsync(_stop.Token).AsTask();
                endWait ??= ends.Msgs.WaitToReadAsync(_stop.Token).AsTask();
                await Task.WhenAny(dataWait, endWait).ConfigureAwait(false);
                if (dataWait.IsCompleted)
                {
                    if (!await dataWait.ConfigureAwait(false))
                    {
                        throw SubscriptionEnded();
                    }

                    dataWait = null;
                }

                if (endWait.IsCompleted)
                {
                    if (!await endWait.ConfigureAwait(false))
                    {
                        throw SubscriptionEnded();
                    }

                    endWait = null;
                }
            }
        }
        catch (OperationCanceledException) when (_stop.IsCancellationRequested)
        {
            // Stopped.
        }
        catch (HandlerFault fault)
        {
            failure = new MessageHandlerException(fault.InnerException!, 1 + data.Msgs.Count);
            Interlocked.Add(ref _unhandled, 1);
        }
#pragma warning disable CA1031 // the loop's end is the consumer's completion: whatever ends it is reported there
        catch (Exception e)
#pragma warning restore CA1031
        {
            failure = e;
        }
        finally
        {
            Interlocked.Add(ref _unhandled, data.Msgs.Count); // received, never handed over: Core keeps nothing
            failure ??= await Unsubscribe(data).ConfigureAwait(false);
            failure ??= await Unsubscribe(ends).ConfigureAwait(false);
        }

        Complete(failure);
    }

    /// <summary>Ends a subscription; what that throws is the consumer's fault, and never keeps it from completing.</summary>
    private static async Task<Exception?> Unsubscribe(INatsSub<Incoming<T>> subscription)
    {
        try
        {
            await subscription.DisposeAsync().ConfigureAwait(false);
            return null;
        }
#pragma warning disable CA1031 // reported through the completion
        catch (Exception e)
#pragma warning restore CA1031
        {
            return e;
        }
    }

    private NatsPipeException SubscriptionEnded()
        => new($"The subscription to '{_options.Subject}' ended (its connection was disposed) before {_options.ExpectedProducers} producers had ended.");

    private async ValueTask OnCoreAsync(Incoming<T> message)
    {
        if (message.Kind != EnvelopeKind.Data)
        {
            Interlocked.Increment(ref _malformed);
            return;
        }

        if (_book.FindFromLoop(message.Producer) is not { } producer)
        {
            Volatile.Write(ref _refused, _refused + 1);
            return;
        }

        if (_options.Group is null)
        {
            if (message.Sequence < producer.Next)
            {
                // Core neither resends nor reorders one connection's messages: this is another publisher using the
                // same identity, or a forged one. Not handed over.
                Interlocked.Increment(ref _malformed);
                return;
            }

            if (message.Sequence > producer.Next)
            {
                Report(producer, producer.Next, message.Sequence - 1);
            }

            producer.Next = message.Sequence + 1;
        }

        await Handle(message.Message).ConfigureAwait(false);
        Volatile.Write(ref producer.Handled, producer.Handled + 1);
        Volatile.Write(ref _handled, _handled + 1);
    }

    /// <summary>The expected producers all ended and everything before their markers was handled: what they posted beyond the last one seen is lost.</summary>
    private void FinishCore()
    {
        if (_options.Group is not null)
        {
            return; // a share of the work: only the group's combined counts can tell
        }

        foreach (var producer in _book.SeenOnLoop)
        {
            if (producer.Posted is { } posted && posted >= producer.Next)
            {
                Report(producer, producer.Next, posted);
                producer.Next = posted + 1;
            }
        }
    }

    private void Report(ProducerBook.Producer producer, long first, long last)
    {
        Volatile.Write(ref _lost, _lost + (last - first + 1));
        _options.LossReported?.Invoke(new NatsLoss(producer.Name, first, last));
    }
}
