using Concurrency.Benchmarks.Backbone.Harness;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// The checks a block goes through catch what a broken path would do: lose, duplicate or reorder a message, across the
/// wrap from one block to the next as well. Consumers are driven by hand on the test's thread, so nothing here waits.
/// </summary>
public sealed class DeliveryVerificationTests
{
    [Fact]
    public void VerifyBlock_EveryMessageInOrder_Passes()
    {
        using var group = new ConsumerGroup(1, 1, sharesWork: false);
        var messages = Message.Preallocate(100);

        Deliver(group, messages, messages);

        group.VerifyBlock("test");
    }

    [Fact]
    public void VerifyBlock_OneMessageMissing_Throws()
    {
        using var group = new ConsumerGroup(1, 1, sharesWork: false);
        var messages = Message.Preallocate(100);

        Deliver(group, messages, messages.Skip(1));

        Assert.Throws<InvalidOperationException>(() => group.VerifyBlock("test"));
    }

    [Fact]
    public void VerifyBlock_LossBalancedByDuplicate_ThrowsOnChecksum()
    {
        using var group = new ConsumerGroup(1, 1, sharesWork: false);
        var messages = Message.Preallocate(100);

        Deliver(group, messages, messages.Take(99).Append(messages[0]));

        var failure = Assert.Throws<InvalidOperationException>(() => group.VerifyBlock("test"));
        Assert.Contains("checksum", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void VerifyBlock_OutOfOrderWithOneProducer_Throws()
    {
        using var group = new ConsumerGroup(1, 1, sharesWork: false);
        var messages = Message.Preallocate(100);

        Deliver(group, messages, messages.Reverse());

        var failure = Assert.Throws<InvalidOperationException>(() => group.VerifyBlock("test"));
        Assert.Contains("order", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void VerifyBlock_ProducersInterleavedEachInOrder_Passes()
    {
        using var group = new ConsumerGroup(1, 2, sharesWork: false);
        var messages = Message.Preallocate(100, producers: 2);

        // Producer 0's messages all arrive before producer 1's: any interleaving of in-order producers is legal.
        Deliver(group, messages, messages.Where(m => m.Producer == 0).Concat(messages.Where(m => m.Producer == 1)));

        group.VerifyBlock("test");
    }

    [Fact]
    public void VerifyBlock_OneProducerOutOfOrderAmongTwo_Throws()
    {
        using var group = new ConsumerGroup(1, 2, sharesWork: false);
        var messages = Message.Preallocate(100, producers: 2);
        var delivered = messages.ToArray();
        (delivered[2], delivered[4]) = (delivered[4], delivered[2]); // producer 0's sequences 1 and 2 swap; checksum unchanged

        Deliver(group, messages, delivered);

        var failure = Assert.Throws<InvalidOperationException>(() => group.VerifyBlock("test"));
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
