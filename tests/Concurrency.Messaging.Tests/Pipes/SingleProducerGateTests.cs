namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// The single-producer gate step by step, on a gate that lives on the heap so two threads can share it: a second thread
/// that posts while the owner's post is in flight is refused (or, for an Rx operator, serialized behind a lock), and an
/// orderly hand-off between threads is allowed.
/// </summary>
public sealed class SingleProducerGateTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void EnterSlow_WhileOwnersPostInFlight_RefusedOrSerialized(bool tolerateConcurrent)
    {
        var box = new GateBox(tolerateConcurrent);
        var owner = PostingThread.Current;
        Assert.Equal(SingleProducerGate.Entry.Owner, box.Gate.EnterSlow(owner));
        Assert.True(box.Gate.TryEnter(owner, out var inFlight)); // the owner's post is now in flight, until Exit below

        Exception? refusal = null;
        SingleProducerGate.Entry? entry = null;
        var second = new Thread(() =>
        {
            try
            {
                entry = box.Gate.EnterSlow(PostingThread.Current);
                if (entry == SingleProducerGate.Entry.Locked)
                {
                    box.Gate.ExitLocked(); // the lock is this thread's to release
                }
            }
            catch (InvalidOperationException ex)
            {
                refusal = ex;
            }
        });
        second.Start();

        // The second thread has seen the owner's post in flight and now waits for it to land.
        Assert.True(SpinWait.SpinUntil(() => box.Gate.OverlapSeen, TestTimeouts.Default));
        Assert.True(second.IsAlive);
        SingleProducerGate.Exit(inFlight);
        Assert.True(second.Join(TestTimeouts.Default));

        if (tolerateConcurrent)
        {
            Assert.Null(refusal);
            Assert.Equal(SingleProducerGate.Entry.Locked, entry);
            Assert.False(box.Gate.TryEnter(owner, out _)); // from now on every post goes through the lock
        }
        else
        {
            Assert.NotNull(refusal);
            Assert.Contains("at the same time", refusal.Message, StringComparison.Ordinal);
            Assert.Null(entry);
        }
    }

    [Fact]
    public void EnterSlow_AfterOwnersPostLanded_HandsOffWithoutComplaint()
    {
        var box = new GateBox(tolerateConcurrent: false);
        Assert.Equal(SingleProducerGate.Entry.Owner, box.Gate.EnterSlow(PostingThread.Current));
        Assert.True(box.Gate.TryEnter(PostingThread.Current, out var first));
        SingleProducerGate.Exit(first);

        var handedOff = false;
        var second = new Thread(() =>
        {
            var me = PostingThread.Current;
            if (box.Gate.EnterSlow(me) == SingleProducerGate.Entry.Owner && box.Gate.TryEnter(me, out var mine))
            {
                SingleProducerGate.Exit(mine);
                handedOff = true;
            }
        });
        second.Start();
        Assert.True(second.Join(TestTimeouts.Default));

        Assert.True(handedOff);
        Assert.False(box.Gate.OverlapSeen);
        Assert.False(box.Gate.TryEnter(PostingThread.Current, out _)); // ownership moved on
    }

    [Fact]
    public void Close_PostInFlight_WaitsForItThenRefusesEverything()
    {
        var box = new GateBox(tolerateConcurrent: false);
        var owner = PostingThread.Current;
        box.Gate.EnterSlow(owner);
        Assert.True(box.Gate.TryEnter(owner, out var inFlight));

        var closer = new Thread(() => box.Gate.Close());
        closer.Start();
        Assert.True(SpinWait.SpinUntil(() => box.Gate.IsClosed, TestTimeouts.Default));
        Assert.True(closer.IsAlive); // Close waits for the post in flight to land
        SingleProducerGate.Exit(inFlight);
        Assert.True(closer.Join(TestTimeouts.Default));

        Assert.False(box.Gate.TryEnter(owner, out _));
        Assert.Equal(SingleProducerGate.Entry.Closed, box.Gate.EnterSlow(owner));
    }

    /// <summary>The gate is a mutable struct held in a field, as the ring pipe holds it.</summary>
    private sealed class GateBox
    {
        public SingleProducerGate Gate;

        public GateBox(bool tolerateConcurrent) => Gate.Initialize(tolerateConcurrent);
    }
}
