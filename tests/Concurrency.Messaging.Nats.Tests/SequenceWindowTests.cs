namespace Concurrency.Messaging.Nats.Tests;

public sealed class SequenceWindowTests
{
    [Fact]
    public void In_order_the_prefix_follows_and_every_earlier_number_is_a_repeat()
    {
        var window = new SequenceWindow(64);
        for (var s = 1L; s <= 1_000; s++)
        {
            Assert.Equal(SequenceVerdict.New, window.Check(s));
            window.Mark(s);
            Assert.Equal(s, window.Contiguous);
        }

        Assert.Equal(SequenceVerdict.Repeat, window.Check(1));
        Assert.Equal(SequenceVerdict.Repeat, window.Check(1_000));
        Assert.Equal(SequenceVerdict.New, window.Check(1_001));
    }

    [Fact]
    public void A_resend_stored_after_later_messages_is_new_once_and_a_repeat_after()
    {
        var window = new SequenceWindow(64);
        foreach (var s in new long[] { 1, 2, 4, 5, 6 })
        {
            window.Mark(s);
        }

        Assert.Equal(2, window.Contiguous);
        Assert.Equal(SequenceVerdict.New, window.Check(3));   // a high-water mark (6) would have dropped it
        Assert.Equal(SequenceVerdict.Repeat, window.Check(5));
        window.Mark(3);
        Assert.Equal(6, window.Contiguous);
        Assert.Equal(SequenceVerdict.Repeat, window.Check(3));
    }

    [Fact]
    public void A_message_beyond_the_window_slides_it_and_what_it_passed_unhandled_becomes_unknown()
    {
        var window = new SequenceWindow(64);
        window.Mark(1);
        window.Mark(3);          // 2 is missing
        window.Mark(200);        // slides the bitmap to [137, 201)
        Assert.Equal(1, window.Contiguous);
        Assert.Equal(SequenceVerdict.Unknown, window.Check(2));  // cannot tell: handed over and counted
        Assert.Equal(SequenceVerdict.Unknown, window.Check(3));  // marked once, but slid past
        Assert.Equal(SequenceVerdict.Repeat, window.Check(200));
        Assert.Equal(SequenceVerdict.New, window.Check(199));
        window.Mark(2);          // the prefix moves on over what it can vouch for
        Assert.Equal(2, window.Contiguous);
    }

    [Fact]
    public void Every_interleaving_of_two_shares_hands_each_number_over_once_within_the_window()
    {
        // A consumer that sees every other number (another consumer shares the work) and then each of them again.
        var window = new SequenceWindow(1024);
        var handed = 0;
        for (var round = 0; round < 2; round++)
        {
            for (var s = 2L; s <= 1_000; s += 2)
            {
                if (window.Check(s) != SequenceVerdict.Repeat)
                {
                    handed++;
                    window.Mark(s);
                }
            }
        }

        Assert.Equal(500, handed);
        Assert.Equal(0, window.Contiguous); // 1 never came: the prefix waits, the bitmap remembers
    }

    [Fact]
    public void Random_arrivals_with_repeats_are_handed_over_once_when_they_stay_within_the_window()
    {
        var random = new Random(42);
        var window = new SequenceWindow(4096);
        var order = Enumerable.Range(1, 20_000).Select(s => (long)s).ToList();

        // Arrivals in order, each displaced by at most 1,000 places, and a tenth of them arriving twice.
        var arrivals = order.Select(s => (Key: s + random.Next(1_000), Seq: s)).Concat(order.Where(_ => random.Next(10) == 0).Select(s => (Key: s + random.Next(1_000), Seq: s))).OrderBy(a => a.Key).Select(a => a.Seq);
        var handed = new HashSet<long>();
        foreach (var s in arrivals)
        {
            if (window.Check(s) != SequenceVerdict.Repeat)
            {
                Assert.True(handed.Add(s), $"{s} handed over twice");
                window.Mark(s);
            }
        }

        Assert.Equal(20_000, handed.Count);
        Assert.Equal(20_000, window.Contiguous);
    }
}
