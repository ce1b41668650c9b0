
namespace Concurrency.Benchmarks.Backbone.Harness;

/// <summary>
/// The consumers of one path and the runner's side of every block: <see cref="Arm"/> before posting,
/// <see cref="WaitForBlock"/> after, then <see cref="VerifyBlock"/>, which throws on a lost, duplicated or reordered
/// message so the benchmark fails; <see cref="VerifyTotal"/> checks the whole life of the path after its completion.
/// Each consumer handles every message (one consumer, N → 1, broadcast), or the consumers share them (work-sharing).
/// </summary>
/// <remarks>Concurrency rule: every member but the consumers' <see cref="CountingConsumer.Handle"/> runs on the runner's thread.</remarks>
public sealed class ConsumerGroup : IDisposable
{
    private readonly CountingConsumer[] _consumers;
    private readonly long[] _countsAtArm;    // runner only: each consumer's totals when the current block was armed
    private readonly long[] _checksumsAtArm; // runner only
    private long _block;                     // runner only: the messages posted since the last Arm
    private int _blockSize;                  // runner only: the size of the preallocated block they were posted from
    private int _completions;                // OnCompleted calls the consumers received (Interlocked)

    public ConsumerGroup(int consumers, int producers, bool sharesWork)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(consumers);
        SharesWork = sharesWork;
        _consumers = [.. Enumerable.Range(0, consumers).Select(_ => new CountingConsumer(Signal, producers, sharesWork))];
        _countsAtArm = new long[consumers];
        _checksumsAtArm = new long[consumers];
    }

    public IReadOnlyList<CountingConsumer> Members => _consumers;

    /// <summary>Gets whether consumers share the messages (each handled once) rather than each handling all of them.</summary>
    public bool SharesWork { get; }

    /// <summary>Gets the signal the path's failures go to (<see cref="BlockSignal.Fail"/>).</summary>
    public BlockSignal Signal { get; } = new();

    /// <summary>Runner, before posting a block of <paramref name="messages"/> messages (the consumers are idle).</summary>
    public void Arm(int messages) => Arm(messages, messages);

    /// <summary>
    /// Runner, before posting <paramref name="messages"/> messages as the same preallocated block of
    /// <paramref name="blockSize"/> posted again and again (the latency command's long paced runs), so that
    /// <see cref="VerifyBlock"/> expects that block's checksum once per repeat.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="messages"/> is not a whole number of blocks.</exception>
    public void Arm(long messages, int blockSize)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(blockSize);
        if (messages <= 0 || messages % blockSize != 0)
        {
            throw new ArgumentException($"{messages} messages are not a whole number of blocks of {blockSize}.", nameof(messages));
        }

        _block = messages;
        _blockSize = blockSize;
        for (var i = 0; i < _consumers.Length; i++)
        {
            _countsAtArm[i] = _consumers[i].Count;
            _checksumsAtArm[i] = _consumers[i].Checksum;
            _consumers[i].Expect(_countsAtArm[i] + messages);
        }

        Signal.Arm(SharesWork ? 1 : _consumers.Length, SharesWork ? messages : 0);
    }

    /// <summary>Runner: waits, bounded, until every consumer has handled the block (or the path failed).</summary>
    public void WaitForBlock(string scenario) => Signal.Wait($"{scenario}: delivering a block of {_block} messages");

    /// <summary>Runner, after <see cref="WaitForBlock"/>: what this block delivered, against what it should have.</summary>
    public void VerifyBlock(string scenario)
    {
        var counts = _consumers.Select((c, i) => c.Count - _countsAtArm[i]).ToArray();
        var checksums = _consumers.Select((c, i) => c.Checksum - _checksumsAtArm[i]).ToArray();
        Check(counts, checksums, _block, _block / _blockSize * Message.ExpectedChecksum(_blockSize), $"{scenario}, one block");
    }

    /// <summary>Runner, after the path's final completion: everything <paramref name="blocks"/> blocks delivered.</summary>
    public void VerifyTotal(long blocks, int blockSize, string scenario)
        => Check(
            [.. _consumers.Select(c => c.Count)],
            [.. _consumers.Select(c => c.Checksum)],
            blocks * blockSize,
            blocks * Message.ExpectedChecksum(blockSize),
            $"{scenario}, all {blocks} blocks after completion");

    /// <summary>A consumer's OnCompleted, for paths that deliver the Rx grammar to every consumer.</summary>
    public void CountCompletion() => Interlocked.Increment(ref _completions);

    /// <summary>Runner, after completing a synchronous fan-out: every consumer got exactly one OnCompleted.</summary>
    public void VerifyEveryCompletion(string what)
    {
        var completions = Volatile.Read(ref _completions);
        if (completions != _consumers.Length)
        {
            throw new InvalidOperationException($"{what} delivered {completions} OnCompleted calls to {_consumers.Length} consumers.");
        }
    }

    public void Dispose() => Signal.Dispose();

    private void Check(long[] counts, long[] checksums, long expectedCount, long expectedChecksum, string what)
    {
        if (SharesWork)
        {
            if (counts.Sum() != expectedCount || checksums.Sum() != expectedChecksum)
            {
                throw new InvalidOperationException(
                    $"{what}: the consumers together handled {counts.Sum()} of {expectedCount} messages, checksum {checksums.Sum()} (expected {expectedChecksum}).");
            }

            return;
        }

        for (var i = 0; i < _consumers.Length; i++)
        {
            if (counts[i] != expectedCount || checksums[i] != expectedChecksum)
            {
                throw new InvalidOperationException(
                    $"{what}: consumer {i} handled {counts[i]} of {expectedCount} messages, checksum {checksums[i]} (expected {expectedChecksum}).");
            }

            if (_consumers[i].OutOfOrder != 0)
            {
                throw new InvalidOperationException($"{what}: consumer {i} saw {_consumers[i].OutOfOrder} messages out of their producer's order.");
            }
        }
    }
}
