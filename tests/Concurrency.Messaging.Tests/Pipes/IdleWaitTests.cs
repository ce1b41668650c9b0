namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>What a wait learns for the next one: start with a yield once one look was not enough (see <see cref="IdleWait"/>).</summary>
public sealed class IdleWaitTests
{
    [Fact]
    public void NextYieldsFirst_OneLookEndedTheWait_NextWaitPauses()
    {
        var wait = new IdleWait(spin: true, yieldFirst: true);
        Assert.True(wait.NextYieldsFirst); // nothing looked yet: passes on what it was made with
        Assert.True(wait.Wait(1));
        Assert.False(wait.NextYieldsFirst);
        wait.Reset();
        Assert.False(wait.NextYieldsFirst);
    }

    [Fact]
    public void NextYieldsFirst_SeveralLooks_NextWaitYieldsFirst()
    {
        var wait = new IdleWait(spin: true);
        Assert.False(wait.NextYieldsFirst);
        Assert.True(wait.Wait(1));
        Assert.True(wait.Wait(1));
        Assert.True(wait.NextYieldsFirst);
        wait.Reset();
        Assert.True(wait.NextYieldsFirst);
        wait.Reset(); // a reset with no look in between keeps what was learned
        Assert.True(wait.NextYieldsFirst);
    }

    [Fact]
    public void Wait_YieldingFirst_StillRunsOutAfterItsPausesAndYields()
    {
        var wait = new IdleWait(spin: true, yieldFirst: true);
        var looks = 0;
        while (wait.Wait(200))
        {
            Assert.True(++looks < 1_000, "the wait never ran out");
        }

        Assert.True(looks > 40, $"the wait ran out after {looks} looks, before its pauses and yields");
    }
}
