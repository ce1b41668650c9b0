namespace Concurrency.Benchmarks.Tests;

public class GoalTests
{
    private static readonly Goal AtLeast1_2 = new("a ÷ b", ["a"], ["b"], 1.2) { MinLaunches = 3 };

    [Fact]
    public void Judge_ThreeLaunches_TheMedianOfTheLaunchesMedianRounds_AndEveryRoundAtTheGoalCounted()
    {
        var verdict = AtLeast1_2.Judge([[1.0, 1.3, 1.5], [0.9, 1.1, 1.0], [2.0, 1.9, 1.2]]);

        // The launches' median rounds are 1.3, 1.0 and 1.9; 1.3, 1.5, 2.0, 1.9 and 1.2 reach the goal.
        Assert.Equal(("1.30× [1.00–1.90]", "5 of 9", "met (median)", true), (verdict.Ratio, verdict.AtGoal, verdict.Verdict, verdict.Met));
    }

    [Fact]
    public void Judge_OneLaunch_ItsMedianRoundWithItsLowestAndHighestRound_NotEnoughLaunchesToDecide()
    {
        var verdict = (AtLeast1_2 with { Threshold = 3 }).Judge([[2.0, 3.5, 2.5, 4.0]]);

        Assert.Equal(("3.00× [2.00–4.00]", "2 of 4", "median at goal, 1 of 3 launches", false), (verdict.Ratio, verdict.AtGoal, verdict.Verdict, verdict.Met));
    }

    [Fact]
    public void Judge_MedianBelowTheThreshold_NotMet_AndEveryLaunchAtGoal_SaysSo()
    {
        Assert.Equal("not met", AtLeast1_2.Judge(1.19, 1.0, 1.5, launches: 5).Verdict);
        Assert.Equal("met, every launch", AtLeast1_2.Judge(1.3, 1.2, 1.5, launches: 5).Verdict);
        Assert.Equal("yardstick", (AtLeast1_2 with { IsYardstick = true }).Judge(0.5, 0.4, 0.6, launches: 5).Verdict);
    }

    [Fact]
    public void Judge_AGoalOfOneLaunch_ItsLowestRoundAtTheGoal_MetEvenTheLowest()
    {
        var onOneLaunch = AtLeast1_2 with { MinLaunches = 1 };

        Assert.Equal("met, even the lowest", onOneLaunch.Judge([[1.3, 1.25, 1.4]]).Verdict);
        Assert.Equal("met (median)", onOneLaunch.Judge([[1.3, 1.1, 1.4]]).Verdict);
        Assert.Equal("not met", onOneLaunch.Judge(1.1, 1.0, 1.3, launches: 1).Verdict);
    }

    [Fact]
    public void Judge_LaunchesSpreadBeyondTheLimit_TheVerdictSaysSo()
    {
        var verdict = (AtLeast1_2 with { SpreadLimit = 1.5 }).Judge(1.3, 1.0, 2.0, launches: 5);

        Assert.Equal("met (median); launches spread 2.0× > 1.5×", verdict.Verdict);
    }

    [Fact]
    public void RatioOf_SeveralOnEachSide_TakesTheBestOfEach()
    {
        var goal = new Goal("best ÷ better of c and d", ["a", "b"], ["c", "d"], 1.2);
        var rates = new Dictionary<string, double> { ["a"] = 10, ["b"] = 30, ["c"] = 20, ["d"] = 15 };

        Assert.Equal(1.5, goal.RatioOf(name => rates[name]));
        Assert.Equal(["a", "b", "c", "d"], goal.Contenders);
    }

    [Fact]
    public void Judge_NoLaunchOrAnEmptyLaunch_Throws()
    {
        Assert.Throws<ArgumentException>(() => AtLeast1_2.Judge([]));
        Assert.Throws<ArgumentException>(() => AtLeast1_2.Judge([[]]));
    }
}
