namespace Concurrency.Benchmarks.Tests;

public sealed class HeadToHeadTests
{
    [Fact]
    public void Design_OneContender_IsOneRound()
    {
        Assert.Equal([[0]], HeadToHead.Design(1));
    }

    [Theory]
    [InlineData(2, 2)]
    [InlineData(3, 6)]
    [InlineData(4, 4)]
    [InlineData(5, 10)]
    public void Design_EveryContenderFollowsEveryOtherEquallyOften_AndRunsFirstEquallyOften(int count, int rounds)
    {
        var design = HeadToHead.Design(count);

        Assert.Equal(rounds, design.Length);
        Assert.All(design, row => Assert.Equal(Enumerable.Range(0, count), row.Order()));
        var neighbours = design.SelectMany(row => row.Zip(row.Skip(1))).GroupBy(pair => pair).Select(g => g.Count()).ToList();
        Assert.Equal(count * (count - 1), neighbours.Count); // every ordered pair occurs
        Assert.Single(neighbours.Distinct());                // and each as often as the others
        Assert.Single(design.GroupBy(row => row[0]).Select(g => g.Count()).Distinct());
    }

    [Fact]
    public void Run_RunsEveryContenderEachRoundInTheDesignsOrder_AndKeepsItsValuesByRound()
    {
        var calls = new List<string>();
        var progress = new List<(int Round, int Rounds, string Label)>();
        HeadToHead.Contender Fake(string label, double first) => new(label, () =>
        {
            calls.Add(label);
            return first + calls.Count;
        });

        var values = HeadToHead.Run([Fake("a", 1000), Fake("b", 2000)], 2, (round, rounds, label) => progress.Add((round, rounds, label)));

        // The design for two: a then b, b then a; twice through.
        Assert.Equal(["a", "b", "b", "a", "a", "b", "b", "a"], calls);
        Assert.Equal([1001.0, 1004.0, 1005.0, 1008.0], values[0]);
        Assert.Equal([2002.0, 2003.0, 2006.0, 2007.0], values[1]);
        Assert.Equal([(0, 4, "a"), (0, 4, "b"), (1, 4, "b"), (1, 4, "a")], progress.Take(4));
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
    public void Ratios_AreTheRoundsOwn_InRoundOrder()
    {
        Assert.Equal([2.0, 0.5], HeadToHead.Ratios([100, 200], [50, 400]));
    }

    [Fact]
    public void Ratio_RoundsMissingOnOneSide_Throws()
    {
        Assert.Throws<ArgumentException>(() => HeadToHead.Ratio([1, 2], [1]));
    }
}
