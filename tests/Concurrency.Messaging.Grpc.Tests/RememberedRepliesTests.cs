using Google.Protobuf;

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
                Remember(replies, reply);
                expected.Enqueue(reply);
            }

            for (var forget = random.Next(0, 6); forget > 0 && expected.Count > 0; forget--)
            {
                Assert.True(replies.TryPeekOldest(out var oldest));
                var gone = expected.Dequeue();
                Assert.Equal(gone.Sequence, oldest);
                replies.RemoveOldest();
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

        while (replies.Count > 0)
        {
            replies.RemoveOldest();
        }

        Assert.Equal(Arrays(replies), replies.Bytes); // every run's strings given back once
    }

    [Fact]
    public void RemoveOldest_OfTheLast_KeepsTheArraysUntilAQuietTrim_AndAReplyOutOfOrderIsRefused()
    {
        var replies = new RememberedReplies();
        Remember(replies, new Envelope { Sequence = 5, Type = "echo", Payload = ByteString.CopyFrom(1, 2, 3) });
        var fifth = new Envelope { Sequence = 5 };
        Assert.Throws<ArgumentException>(() => replies.Add(fifth, replies.Plan(fifth)));

        replies.RemoveOldest();

        Assert.False(replies.TryPeekOldest(out _));
        Assert.Equal((16, 256, 4, (16L * RememberedReplies.EntryBytes) + 256 + (4L * RememberedReplies.RunBytes)), (replies.Capacity, replies.PayloadCapacity, replies.RunCapacity, replies.Bytes));
        replies.TrimExcess(); // a reply was remembered since the last trim: kept
        Assert.Equal(16, replies.Capacity);
        replies.TrimExcess(); // nothing since: let go
        Assert.Equal((0, 0, 0L), (replies.Capacity, replies.PayloadCapacity, replies.Bytes));
        Assert.Null(replies.Find(5));
        Remember(replies, new Envelope { Sequence = 1, Payload = ByteString.CopyFrom(9) });
        Assert.Equal(new Envelope { Sequence = 1, Payload = ByteString.CopyFrom(9) }, replies.Find(1));
    }

    [Fact]
    public void TrimExcess_GivesBackRoomABurstLeft_KeepsArraysThatSwingOrRunEmptyBetweenBatches_AndLetsThemGoWhenQuiet()
    {
        var replies = new RememberedReplies();
        ulong sequence = 0;
        void Fill(int count)
        {
            for (var i = 0; i < count; i++)
            {
                Remember(replies, new Envelope { Sequence = ++sequence, Payload = ByteString.CopyFrom(new byte[64]) });
            }
        }

        void Forget(int count)
        {
            for (var i = 0; i < count; i++)
            {
                replies.RemoveOldest();
            }

            replies.TrimExcess();
        }

        // A burst of 10,000 of which 10 stay: the arrays are kept for the acknowledgements after it, then shrink step by
        // step, within some tens of them, to a few KiB.
        Fill(10_000);
        Assert.True(replies.Capacity >= 10_000);
        Forget(9_990);
        Forget(0);
        Assert.True(replies.Capacity >= 10_000);
        for (var acknowledgement = 0; acknowledgement < 200; acknowledgement++)
        {
            Forget(0);
        }

        Assert.InRange(replies.Capacity * RememberedReplies.EntryBytes, 1, 8 * 1024);
        Assert.InRange(replies.PayloadCapacity, 1, 8 * 1024);
        Forget(10);

        // Batches whose count swings between acknowledgements, as a pipelining client's does: grown once, kept.
        for (var round = 0; round < 50; round++)
        {
            Fill(round % 2 == 0 ? 2_000 : 20);
            Forget(round % 2 == 0 ? 1_990 : 30);
        }

        var swung = (replies.Capacity, replies.PayloadCapacity);
        for (var round = 0; round < 20; round++)
        {
            Fill(round % 2 == 0 ? 2_000 : 20);
            Assert.Equal(swung, (replies.Capacity, replies.PayloadCapacity));
            Forget(round % 2 == 0 ? 1_990 : 30);
        }

        // Batches of 256, each acknowledged whole before the next: the memory runs empty at every acknowledgement and keeps
        // its arrays, made once, not again each batch.
        Fill(256);
        Forget(256);
        var (entries, payloads) = (replies.Capacity, replies.PayloadCapacity);
        Assert.True(entries >= 256 && payloads >= 256 * 64);
        for (var batch = 0; batch < 10; batch++)
        {
            Fill(256);
            Assert.Equal((entries, payloads), (replies.Capacity, replies.PayloadCapacity));
            Forget(256);
        }

        // Quiet: an acknowledgement with nothing remembered since the last lets the arrays go, and the memory holds nothing.
        Assert.True(replies.Bytes > 0);
        Forget(0);
        Assert.Equal((0, 0, 0L), (replies.Capacity, replies.PayloadCapacity, replies.Bytes));
        Fill(1);
        Assert.Equal(16, replies.Capacity);
    }

    [Fact]
    public void Bytes_CountsTheArraysAtTheirCapacityAndEachRunOfEqualStringsOnce()
    {
        var replies = new RememberedReplies();
        var before = replies.Bytes;
        for (ulong sequence = 1; sequence <= 100; sequence++)
        {
            // Runs of one type: "a", "a", "b", "b", ... each run's string counted once, at its oldest reply.
            var reply = new Envelope { Sequence = sequence, Type = new string((char)('a' + (int)((sequence - 1) / 2 % 26)), 10), Source = "raw", Payload = ByteString.CopyFrom(new byte[100]) };
            var plan = replies.Plan(reply);
            replies.Add(reply, plan);
            Assert.Equal(before + plan.Bytes, replies.Bytes);
            before = replies.Bytes;
        }

        var strings = (50 * 48) + 32; // 50 runs of a 10-char type (48 bytes each), one source of 3 chars (32 bytes)
        Assert.Equal(Arrays(replies) + strings, replies.Bytes);

        // Forgetting the first of a run moves its string's count to the next: nothing is given back early.
        replies.RemoveOldest();
        Assert.Equal(Arrays(replies) + strings, replies.Bytes);
        replies.RemoveOldest();
        Assert.Equal(Arrays(replies) + strings - 48, replies.Bytes);
        while (replies.Count > 0)
        {
            replies.RemoveOldest();
        }

        Assert.Equal(Arrays(replies), replies.Bytes); // the strings are given back
        replies.TrimExcess();
        replies.TrimExcess();
        Assert.Equal(0, replies.Bytes);
    }

    [Fact]
    public void Runs_KeepEachRunOfEqualStringsOnce_ErrorsIncluded_AndEntriesHoldNoReference()
    {
        // An entry holds no reference, so that remembering a reply stores none (no write barrier, no card to scan).
        var entry = typeof(RememberedReplies).GetNestedType("Entry", System.Reflection.BindingFlags.NonPublic)!;
        Assert.All(entry.GetFields(System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic), field => Assert.True(field.FieldType.IsValueType, field.Name));

        // Five failures with one error text, then five answers: two runs, each string counted once.
        var replies = new RememberedReplies();
        for (ulong sequence = 1; sequence <= 10; sequence++)
        {
            var failed = sequence <= 5;
            Remember(replies, new Envelope { Sequence = sequence, Type = failed ? string.Empty : new string('t', 10), Error = failed ? new string('e', 10) : string.Empty });
        }

        Assert.Equal(4, replies.RunCapacity);
        Assert.Equal(Arrays(replies) + 48 + 48, replies.Bytes);
        Assert.Equal(new string('e', 10), replies.Find(3)!.Error);
        Assert.Equal((string.Empty, new string('t', 10)), (replies.Find(7)!.Error, replies.Find(7)!.Type));
        for (var i = 0; i < 5; i++)
        {
            replies.RemoveOldest();
        }

        Assert.Equal(Arrays(replies) + 48, replies.Bytes); // the failures' run ended: its error is given back
        Assert.Equal(new string('t', 10), replies.Find(10)!.Type);
    }

    // The arrays' bytes at their capacity.
    private static long Arrays(RememberedReplies replies)
        => ((long)replies.Capacity * RememberedReplies.EntryBytes) + replies.PayloadCapacity + ((long)replies.RunCapacity * RememberedReplies.RunBytes);

    // Adds by the plan for it, as a session with room does.
    private static void Remember(RememberedReplies replies, Envelope reply) => replies.Add(reply, replies.Plan(reply));
}
