using Concurrency.Benchmarks.CrossProcess;
using HdrHistogram;

namespace Concurrency.Benchmarks.Tests.Grpc;

/// <summary><c>lab nats</c>: the consumer process's latency word, and a quick run against a real nats-server.</summary>
public sealed class NatsExperimentTests
{
    [Fact]
    public void LatencyWord_RoundTrip_SameCountsAndPercentiles()
    {
        var histogram = new LongHistogram(3_600_000_000_000, 3);
        for (var i = 1; i <= 10_000; i++)
        {
            histogram.RecordValue(i * 1_000L); // 1 µs to 10 ms
        }

        var word = NatsConsumeCommand.Encode(histogram);
        var back = NatsConsumeCommand.Decode(word);

        Assert.DoesNotContain(" ", word, StringComparison.Ordinal); // one word of the done line
        Assert.Equal(histogram.TotalCount, back.TotalCount);
        Assert.Equal(histogram.GetValueAtPercentile(50), back.GetValueAtPercentile(50));
        Assert.Equal(histogram.GetValueAtPercentile(99), back.GetValueAtPercentile(99));
        Assert.Equal(histogram.GetMaxValue(), back.GetMaxValue());
    }

    [Theory]
    [InlineData(1_000_000, 1_000)]
    [InlineData(1_000_000, 1_000_000)]
    [InlineData(100, 5_000_000_000)]
    public void LatencyWord_ManyOrLongValues_RoundTrip(int count, long step)
    {
        var histogram = new LongHistogram(3_600_000_000_000, 3);
        for (var i = 1L; i <= count; i++)
        {
            histogram.RecordValue(Math.Min(i * step, 3_600_000_000_000));
        }

        var back = NatsConsumeCommand.Decode(NatsConsumeCommand.Encode(histogram));

        Assert.Equal(histogram.TotalCount, back.TotalCount);
        Assert.Equal(histogram.GetValueAtPercentile(99), back.GetValueAtPercentile(99));
    }

    [Fact]
    public void LatencyWord_ScatteredValues_SameHistogram()
    {
        // A million values scattered from 1 ns to 10 s, as an unpaced Core round's backlog gives (HdrHistogram's own
        // compressed encoding failed to read back the histogram of such a round).
        var random = new Random(42);
        var histogram = new LongHistogram(3_600_000_000_000, 3);
        for (var i = 0; i < 1_000_000; i++)
        {
            histogram.RecordValue((long)Math.Pow(10, random.NextDouble() * 10));
        }

        var back = NatsConsumeCommand.Decode(NatsConsumeCommand.Encode(histogram));

        Assert.Equal(histogram.TotalCount, back.TotalCount);
        Assert.Equal(histogram.RecordedValues().Select(b => (b.ValueIteratedTo, b.CountAtValueIteratedTo)), back.RecordedValues().Select(b => (b.ValueIteratedTo, b.CountAtValueIteratedTo)));
    }

    [Fact]
    public void LatencyWord_NotOne_FormatException()
    {
        Assert.Throws<FormatException>(() => NatsConsumeCommand.Decode("bm90IGEgaGlzdG9ncmFt")); // "not a histogram"
        Assert.Throws<FormatException>(() => NatsConsumeCommand.Decode("%%%"));
        Assert.Throws<FormatException>(() => NatsConsumeCommand.Decode(NatsConsumeCommand.Encode(new LongHistogram(1000, 3))[..^4] + "AAAA")); // cut short
    }

    [Fact]
    public async Task Quick_NatsServerInstalled_EveryRoundVerifiedAndBothGoalsJudgedPerMode()
    {
        Assert.SkipWhen(NatsServer.Find() is null, $"nats-server is not installed (on PATH or in /usr/sbin): {NatsServer.InstallHint}.");

        // Every round throws unless its consumer handled each message once (count and sum); the outcome is read after.
        var outcome = await Task.Run(() => new NatsExperiment().Run(new LabContext(Environment.ProcessorCount, quick: true)), TestContext.Current.CancellationToken)
            .WaitAsync(TimeSpan.FromMinutes(3), TestContext.Current.CancellationToken);

        var speed = outcome.Tables[0];
        Assert.Equal(4, speed.Rows.Count); // Core and JetStream, NATS.Net and ours
        Assert.All(speed.Rows, row => Assert.True(double.Parse(row[^1], System.Globalization.CultureInfo.InvariantCulture) > 0, $"no p99 in {string.Join(" | ", row)}"));
        var goals = outcome.Tables[1];
        Assert.Equal(["Core: our msg/s ÷ NATS.Net's", "Core: NATS.Net's p99 ÷ ours, paced", "JetStream: our msg/s ÷ NATS.Net's", "JetStream: NATS.Net's p99 ÷ ours, paced"], goals.Rows.Select(row => row[0]));
        Assert.Equal(8, outcome.Figures!.Count); // msg/s and p99 for each contender
    }

    [Fact]
    public void NoServer_OneLineSaysHowToInstallIt()
    {
        var outcome = new NatsExperiment(findNatsServer: () => null).Run(new LabContext(Environment.ProcessorCount, quick: true));

        var note = Assert.Single(Assert.Single(outcome.Tables).Rows);
        Assert.Equal(NatsServer.SkipLine, Assert.Single(note));
    }
}
