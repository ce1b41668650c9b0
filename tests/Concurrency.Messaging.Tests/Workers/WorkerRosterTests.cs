using Concurrency.Messaging.Workers;

namespace Concurrency.Messaging.Tests.Workers;

/// <summary>The pool's bookkeeping alone, without threads: each move of a worker keeps the counts by state with it.</summary>
public sealed class WorkerRosterTests : IDisposable
{
    private readonly Lock _gate = new(); // the pool's gate: every test holds it, as the pool does around each call
    private readonly WorkerRoster _roster;
    private readonly List<PoolWorker> _workers = [];

    public WorkerRosterTests() => _roster = new WorkerRoster(_gate);

    [Fact]
    public void Claim_TwoParked_TakesTheLongestParkedFirstAndCountsItUntilItArrives()
    {
        lock (_gate)
        {
            var (first, second) = (Parked(), Parked());

            _roster.Claim(_roster.LongestParked!);

            Assert.Equal(WorkerState.Claimed, first.State);
            Assert.Equal((2, 1, 1, 2), (_roster.Alive, _roster.Parked, _roster.Claimed, _roster.Serving));
            Assert.Same(second, _roster.LongestParked);
            _roster.Arrive(first);
            Assert.Equal((WorkerState.Running, 0), (first.State, _roster.Claimed));
        }
    }

    [Fact]
    public void Retire_ParkedAndRunning_BothStopServingAndCountOnceUntilTheyExit()
    {
        lock (_gate)
        {
            var (parked, running) = (Parked(), Running());

            _roster.Retire(parked);
            _roster.Retire(running);

            Assert.Equal((WorkerState.Retiring, WorkerState.Retiring), (parked.State, running.State));
            Assert.Equal((2, 0, 2, 0, 2L), (_roster.Alive, _roster.Parked, _roster.Retiring, _roster.Serving, _roster.Retired));
            Assert.Null(_roster.LongestParked);
            _roster.Exit(parked);
            _roster.Exit(running);
            Assert.Equal((0, 0, 2L), (_roster.Alive, _roster.Retiring, _roster.Retired));
        }
    }

    [Fact]
    public void TakeAllParked_ThreeParked_ReturnsThemInParkingOrderRunningAndEmptiesTheList()
    {
        lock (_gate)
        {
            PoolWorker[] parked = [Parked(), Parked(), Parked()];

            var taken = _roster.TakeAllParked();

            Assert.Equal(parked, taken);
            Assert.All(taken, worker => Assert.Equal(WorkerState.Running, worker.State));
            Assert.Equal((0, 3, 0L), (_roster.Parked, _roster.Serving, _roster.Retired));
        }
    }

    public void Dispose()
    {
        foreach (var worker in _workers)
        {
            worker.Dispose();
        }
    }

    private PoolWorker Running()
    {
        var worker = _roster.Add(WorkerState.Running);
        _workers.Add(worker);
        return worker;
    }

    private PoolWorker Parked()
    {
        var worker = Running();
        _roster.Park(worker);
        return worker;
    }
}
