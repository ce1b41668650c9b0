using Concurrency.Benchmarks.Grpc;
using Xunit;

namespace Concurrency.Benchmarks.Tests.Grpc;

public sealed class HeadToHeadTests
{
    [Fact]
    public void Order_RotatesEachRound_SoEveryContenderRunsFirstOnce()
    {
        int[][] orders = [.. Enumerable.Range(0, 3).Select(round => HeadToHead.Order(3, round).ToArray())];

        Assert.Equal([[0, 1, 2], [1, 2, 0], [2, 0, 1]], orders);
    }

    [Fact]
    public void Run_RunsEveryContenderEachRoundInTheRotatedOrder_AndKeepsItsRatesByRound()
    {
        var calls = new List<(string Label, int Messages)>();
        HeadToHead.Contender Fake(string label, int messages, double firstRate) => new(label, messages, count =>
        {
            calls.Add((label, count));
            return Task.FromResult(new PeerRunResult(firstRate + calls.Count, double.NaN, double.NaN, double.NaN));
        });

        var rates = HeadToHead.Run([Fake("a", 10, 1000), Fake("b", 20, 2000)], 2, (_, _) => { });

        Assert.Equal([("a", 10), ("b", 20), ("b", 20), ("a", 10)], calls);
        Assert.Equal([1001.0, 1004.0], rates[0]);
        Assert.Equal([2002.0, 2003.0], rates[1]);
    }

    [Fact]
    public void Ratio_IsTakenWithinEachRound_NotBetweenTheMedians()
    {
        // Round 1: 100 against 50; round 2: 200 against 400. The medians' ratio would be 150 / 225.
        var ratio = HeadToHead.Ratio([100, 200], [50, 400]);

        Assert.Equal(1.25, ratio.Median, 6);
        Assert.Equal(0.5, ratio.Low, 6);
        Assert.Equal(2, ratio.High, 6);
    }

    [Fact]
    public void Ratio_RoundsMissingOnOneSide_Throws()
    {
        Assert.Throws<ArgumentException>(() => HeadToHead.Ratio([1, 2], [1]));
    }
}
