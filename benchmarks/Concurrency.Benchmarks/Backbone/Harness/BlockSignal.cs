using System.Runtime.InteropServices;

namespace Concurrency.Benchmarks.Backbone.Harness;

/// <summary>
/// The runner's wait for one block of messages. Each consumer arrives once per block (when it has handled its share), or,
/// when consumers share the work, the one that handles the block's last message arrives for all. A path's failure (an
/// OnError, a faulted pipe) releases the wait at once, so a broken case fails fast instead of waiting out the run limit.
/// The runner blocks on an event rather than spinning: on one core a spinning runner would take the consumer's time.
/// </summary>
public sealed class BlockSignal : IDisposable
{
    private readonly ManualResetEventSlim _done = new(); // reset by the runner before it posts a block, set by the last arrival or a failure
    private Padded _counters;                           // see the fields: armed by the runner, counted down by consumers (Interlocked)
    private Exception? _failure;                         // the first failure (Interlocked); read by the runner after _done

    /// <summary>Runner only, before it posts a block: how many arrivals end it, and how many messages are shared.</summary>
    public void Arm(int arrivals, long sharedMessages)
    {
        _done.Reset();
        Volatile.Write(ref _counters.SharedRemaining, sharedMessages);
        Volatile.Write(ref _counters.Pending, arrivals);
    }

    /// <summary>A consumer has handled everything this block owes it.</summary>
    public void Arrive()
    {
        if (Interlocked.Decrement(ref _counters.Pending) == 0)
        {
            _done.Set();
        }
    }

    /// <summary>
    /// A work-sharing consumer handled one message. One atomic per message on a line the consumers share: the price of
    /// knowing when a shared block is done, paid alike by every work-sharing contender.
    /// </summary>
    public void HandledShared()
    {
        if (Interlocked.Decrement(ref _counters.SharedRemaining) == 0)
        {
            Arrive();
        }
    }

    /// <summary>Records the path's failure and releases the runner.</summary>
    public void Fail(Exception failure)
    {
        Interlocked.CompareExchange(ref _failure, failure, null);
        _done.Set();
    }

    /// <summary>
    /// Fails the wait if <paramref name="completion"/> faults or is cancelled: a path only ends before its global cleanup
    /// completes it by failing, and its runner should hear the cause at once.
    /// </summary>
    public void FailWhenFaulted(Task completion, string what)
        => completion.ContinueWith(
            t => Fail(t.Exception?.GetBaseException() ?? new OperationCanceledException($"{what} was cancelled.")),
            CancellationToken.None,
            TaskContinuationOptions.NotOnRanToCompletion | TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);

    /// <summary>Runner only: waits, bounded by <see cref="RunLimit"/>, and throws the path's failure if it had one.</summary>
    public void Wait(string what)
    {
        RunLimit.Wait(_done, what);
        if (Volatile.Read(ref _failure) is { } failure)
        {
            throw new InvalidOperationException($"{what} failed: {failure.Message}", failure);
        }
    }

    public void Dispose() => _done.Dispose();

    // Both counters are written by every consumer; alone on their lines they cost the consumers nothing else.
    [StructLayout(LayoutKind.Explicit, Size = 256)]
    private struct Padded
    {
        [FieldOffset(64)]
        public int Pending;

        [FieldOffset(192)]
        public long SharedRemaining;
    }
}
