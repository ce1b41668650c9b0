using Concurrency.Benchmarks.Backbone.Harness;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// The checks a block goes through catch what a broken path would do: lose, duplicate or reorder a message, across the
/// wrap from one block to the next as well. Consumers are driven by hand on the test's thread, so nothing here waits.
/// </summary>
public sealed class DeliveryVerificationTests
{
    [Fact]
    public void VerifyBlock_EveryMessageInOrder_Passes() => VerifyOneBlock(producers: 1, block => block);

    [Fact]
    public void VerifyBlock_OneMessageMissing_Throws()
        => Assert.Throws<InvalidOperationException>(() => VerifyOneBlock(producers: 1, block => block.Skip(1)));

    [Fact]
    public void VerifyBlock_LossBalancedByDuplicate_ThrowsOnChecksum()
    {
        var failure = Assert.Throws<InvalidOperationException>(() => VerifyOneBlock(producers: 1, block => block.Take(99).Append(block[0])));

        Assert.Contains("checksum", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void VerifyBlock_OutOfOrderWithOneProducer_Throws()
    {
        var failure = Assert.Throws<InvalidOperationException>(() => VerifyOneBlock(producers: 1, block => block.Reverse()));

        Assert.Contains("order", failure.Message, StringComparison.Ordinal);
    }

    // Producer 0's messages all arrive before producer 1's: any interleaving of in-order producers is legal.
    [Fact]
    public void VerifyBlock_ProducersInterleavedEachInOrder_Passes()
        => VerifyOneBlock(producers: 2, block => block.Where(m => m.Producer == 0).Concat(block.Where(m => m.Producer == 1)));

    [Fact]
    public void VerifyBlock_OneProducerOutOfOrderAmongTwo_Throws()
    {
        var failure = Assert.Throws<InvalidOperationException>(() => VerifyOneBlock(producers: 2, block =>
        {
            var delivered = block.ToArray();
            (delivered[2], delivered[4]) = (delivered[4], delivered[2]); // producer 0's sequences 1 and 2 swap; checksum unchanged
            return delivered;
        }));

        Assert.Contains("order", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void VerifyBlock_SecondBlockAfterWrap_PassesAndTotalsAddUp()
    {
        using var group = new ConsumerGroup(1, 3, sharesWork: false);
        var messages = Message.Preallocate(100, producers: 3);

        Deliver(group, messages, messages);
        group.VerifyBlock("test");
        Deliver(group, messages, messages);
        group.VerifyBlock("test");

        group.VerifyTotal(2, messages.Length, "test");
    }

    [Fact]
    public void VerifyTotal_DuplicateAfterTheLastBlock_Throws()
    {
        using var group = new ConsumerGroup(1, 1, sharesWork: false);
        var messages = Message.Preallocate(100);
        Deliver(group, messages, messages);
        group.VerifyBlock("test");

        group.Members[0].Handle(messages[^1]); // a straggler the block's check could not have seen

        Assert.Throws<InvalidOperationException>(() => group.VerifyTotal(1, messages.Length, "test"));
    }

    [Fact]
    public void VerifyBlock_SplitAcrossSharingConsumers_Passes()
    {
        using var group = new ConsumerGroup(2, 1, sharesWork: true);
        var messages = Message.Preallocate(100);
        group.Arm(messages.Length);

        for (var i = 0; i < messages.Length; i++)
        {
            group.Members[i % 2].Handle(messages[i]);
        }

        group.WaitForBlock("test"); // the last shared message released it; returns at once
        group.VerifyBlock("test");
    }

    [Fact]
    public void WaitForBlock_PathFailed_ThrowsItsFailure()
    {
        using var group = new ConsumerGroup(1, 1, sharesWork: false);
        group.Arm(10);

        group.Signal.Fail(new InvalidOperationException("handler threw"));

        var failure = Assert.Throws<InvalidOperationException>(() => group.WaitForBlock("test"));
        Assert.Contains("handler threw", failure.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// One block of 100 messages from <paramref name="producers"/> producers to one consumer, delivered as
    /// <paramref name="deliver"/> rearranges it, then the block's check (which throws on what it finds wrong).
    /// </summary>
    private static void VerifyOneBlock(int producers, Func<Message[], IEnumerable<Message>> deliver)
    {
        using var group = new ConsumerGroup(1, producers, sharesWork: false);
        var messages = Message.Preallocate(100, producers);

        Deliver(group, messages, deliver(messages));

        group.VerifyBlock("test");
    }

    /// <summary>One block by hand: arm for <paramref name="block"/>, hand <paramref name="delivered"/> to the consumer.</summary>
    private static void Deliver(ConsumerGroup group, Message[] block, IEnumerable<Message> delivered)
    {
        group.Arm(block.Length);
        foreach (var message in delivered)
        {
            group.Members[0].Handle(message);
        }
    }
}
