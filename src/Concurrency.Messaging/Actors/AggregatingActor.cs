using System.Runtime.CompilerServices;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// An actor that reads in runs: of what its turn took (everything immediately available, up to the throughput), each
/// maximal run of consecutive messages with the same key goes to <see cref="ReceiveRun"/> in one call, so many increments
/// become one. It never waits for more messages to build a run (no latency is added), and runs are handed over in order.
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
/// <typeparam name="TKey">What groups consecutive messages.</typeparam>
/// <remarks>A request sent with <c>Ask</c> is a run of its own, handled with its reply pending, as by <see cref="Actor{T}"/>.</remarks>
public abstract class AggregatingActor<T, TKey> : Actor<T>
{
    private readonly IEqualityComparer<TKey> _keys;
    private T[] _run = [];    // turn: the current run, copied out of the mailbox's batch

    /// <summary>Creates the actor.</summary>
    /// <param name="keys">Compares keys; <see langword="null"/> for the default comparer.</param>
    protected AggregatingActor(IEqualityComparer<TKey>? keys = null) => _keys = keys ?? EqualityComparer<TKey>.Default;

    /// <summary>Gets the key that groups <paramref name="message"/> with its neighbours.</summary>
    protected abstract TKey KeyOf(T message);

    /// <summary>Handles a run of consecutive messages sharing <paramref name="key"/>, in the order they were received.</summary>
    /// <param name="key">The run's key.</param>
    /// <param name="run">The messages; valid only during the call.</param>
    protected abstract void ReceiveRun(TKey key, ReadOnlySpan<T> run);

    /// <summary>Handles one message as a run of one.</summary>
    protected internal sealed override void Receive(T message) => ReceiveRun(KeyOf(message), new ReadOnlySpan<T>(in message));

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // as the base's loop: see Actor<T>.ReceiveBatch
    internal sealed override void ReceiveBatch(Slot<Envelope<T>>[] batch, ref int next, int end)
    {
        var context = Context;
        while (next < end && !context.IsDiscarding)
        {
            ref var first = ref batch[next].Value;
            if (first.Reply is not null)
            {
                next++;
                ReceiveOne(in first);
                continue;
            }

            TKey key;
            try
            {
                key = KeyOf(first.Message);
            }
            catch
            {
                next++; // past the message whose key threw, as past any message before its handler: it fails alone, once
                throw;
            }

            var runEnd = next + 1;
            while (runEnd < end && batch[runEnd].Value.Reply is null && HasKey(batch[runEnd].Value.Message, key))
            {
                runEnd++;
            }

            var length = runEnd - next;
            if (_run.Length < length)
            {
                _run = new T[Math.Max(length, _run.Length * 2)];
            }

            for (var i = 0; i < length; i++)
            {
                _run[i] = batch[next + i].Value.Message;
            }

            next = runEnd; // past the run before handing it over: a throw drops the whole run, not just its first message
            try
            {
                ReceiveRun(key, _run.AsSpan(0, length));
            }
            finally
            {
                Array.Clear(_run, 0, length);
            }
        }
    }

    /// <summary>
    /// Whether <paramref name="message"/> belongs to the run of <paramref name="key"/>. A key that throws ends the run
    /// before the message, which then starts the next run, where its throw is reported as its own failure: the messages
    /// before it are handled, not lost with it.
    /// </summary>
    private bool HasKey(T message, TKey key)
    {
        try
        {
            return _keys.Equals(KeyOf(message), key);
        }
        catch (Exception)
        {
            return false;
        }
    }
}
