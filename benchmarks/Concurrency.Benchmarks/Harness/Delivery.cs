namespace Concurrency.Benchmarks.Harness;

/// <summary>What the consumers of one run must have handled, and the check that fails the benchmark when they did not.</summary>
public static class Delivery
{
    /// <summary>Every consumer handled every message (1 → 1, N → 1, broadcast), in order when there was one producer.</summary>
    public static void VerifyEach(IReadOnlyList<CountingConsumer> consumers, int messageCount, string scenario, bool ordered)
    {
        var expected = Message.ExpectedChecksum(messageCount);
        for (var i = 0; i < consumers.Count; i++)
        {
            if (consumers[i].Count != messageCount || consumers[i].Checksum != expected)
            {
                throw new InvalidOperationException(
                    $"{scenario}: consumer {i} handled {consumers[i].Count} of {messageCount} messages, checksum {consumers[i].Checksum} (expected {expected}).");
            }

            if (ordered && consumers[i].OutOfOrder != 0)
            {
                throw new InvalidOperationException($"{scenario}: consumer {i} saw {consumers[i].OutOfOrder} messages out of order.");
            }
        }
    }

    /// <summary>The consumers together handled every message once (work-sharing).</summary>
    public static void VerifyShared(IReadOnlyList<CountingConsumer> consumers, int messageCount, string scenario)
    {
        var count = consumers.Sum(c => c.Count);
        var checksum = consumers.Sum(c => c.Checksum);
        var expected = Message.ExpectedChecksum(messageCount);
        if (count != messageCount || checksum != expected)
        {
            throw new InvalidOperationException(
                $"{scenario}: consumers handled {count} of {messageCount} messages, checksum {checksum} (expected {expected}).");
        }
    }
}
