using Concurrency.Messaging.Grpc.Protocol;
using Google.Protobuf;
using Xunit;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The server's memory of a session's replies, kept in rings rather than as envelopes: every field comes back as it went
/// in, across the payload ring's wrap and growth, oldest first, and a reply not remembered is not found.
/// </summary>
public sealed class RememberedRepliesTests
{
    [Fact]
    public void Find_GivesBackEveryFieldOfEachRememberedReply_AcrossWrapsAndGrowth()
    {
        var replies = new RememberedReplies();
        var random = new Random(27);
        var expected = new Queue<Envelope>();
        ulong sequence = 0;

        // Adds and forgets in uneven steps, with payloads of many lengths (empty ones too), so that payloads wrap around
        // the ring's end and the ring grows with live payloads in it.
        for (var step = 0; step < 2_000; step++)
        {
            for (var add = random.Next(0, 6); add > 0; add--)
            {
                var payload = new byte[random.Next(0, 300)];
                random.NextBytes(payload);
                var reply = new Envelope
                {
                    Sequence = sequence += (ulong)random.Next(1, 3),
                    Type = random.Next(3) == 0 ? "other" : "echo",
                    Source = "bench",
                    Error = random.Next(10) == 0 ? "failed" : string.Empty,
                    Forgotten = random.Next(20) == 0,
                    Payload = ByteString.CopyFrom(payload),
                };
                replies.Add(reply, payload.Length + 128);
                expected.Enqueue(reply);
            }

            for (var forget = random.Next(0, 6); forget > 0 && expected.Count > 0; forget--)
            {
                Assert.True(replies.TryPeekOldest(out var oldest, out var bytes));
                var gone = expected.Dequeue();
                Assert.Equal((gone.Sequence, gone.Payload.Length + 128), (oldest, bytes));
                Assert.Equal(gone.Payload.Length + 128, replies.RemoveOldest());
                Assert.Null(replies.Find(gone.Sequence));
            }

            Assert.Equal(expected.Count, replies.Count);
            var remembered = expected.Select(reply => reply.Sequence).ToHashSet();
            foreach (var reply in expected)
            {
                Assert.Equal(reply, replies.Find(reply.Sequence));
                if (!remembered.Contains(reply.Sequence + 1))
                {
                    Assert.Null(replies.Find(reply.Sequence + 1)); // a gap between remembered replies, or past the newest
                }
            }
        }
    }

    [Fact]
    public void TrimExcess_WhenEmpty_StartsAfresh_AndAReplyOutOfOrderIsRefused()
    {
        var replies = new RememberedReplies();
        replies.Add(new Envelope { Sequence = 5, Type = "echo", Payload = ByteString.CopyFrom(1, 2, 3) }, 200);
        Assert.Throws<ArgumentException>(() => replies.Add(new Envelope { Sequence = 5 }, 128));

        replies.RemoveOldest();
        replies.TrimExcess();

        Assert.False(replies.TryPeekOldest(out _, out _));
        Assert.Null(replies.Find(5));
        replies.Add(new Envelope { Sequence = 1, Payload = ByteString.CopyFrom(9) }, 129);
        Assert.Equal(new Envelope { Sequence = 1, Payload = ByteString.CopyFrom(9) }, replies.Find(1));
    }

    [Fact]
    public void TrimExcess_KeepsRoomASteadySessionNeeds_AndGivesBackRoomABurstLeft()
    {
        var replies = new RememberedReplies();
        ulong sequence = 0;
        void Fill(int count)
        {
            for (var i = 0; i < count; i++)
            {
                replies.Add(new Envelope { Sequence = ++sequence, Payload = ByteString.CopyFrom(new byte[64]) }, 192);
            }
        }

        void Empty()
        {
            while (replies.Count > 0)
            {
                replies.RemoveOldest();
            }

            replies.TrimExcess();
        }

        // A burst of 10,000 keeps its room at the empty right after it (it needed it); a batch of 256 later gives it back.
        Fill(10_000);
        Empty();
        Assert.True(replies.Capacity >= 10_000);
        Fill(256);
        Empty();
        Assert.Equal(0, replies.Capacity);

        // Steady batches of 256 reuse their arrays: nothing grows again once the room is there.
        Fill(256);
        Empty();
        var capacity = replies.Capacity;
        var steady = GC.GetAllocatedBytesForCurrentThread();
        for (var batch = 0; batch < 10; batch++)
        {
            Fill(256);
            Empty();
        }

        Assert.Equal(capacity, replies.Capacity);
        Assert.True(GC.GetAllocatedBytesForCurrentThread() - steady < 10 * 256 * 300, "only the test's own envelopes are allocated");
    }
}
