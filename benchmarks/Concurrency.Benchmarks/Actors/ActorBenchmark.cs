using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.HandOff;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// The shape the actor scenarios share, measured in steady state like <see cref="PathBenchmark"/>: the global setup builds
/// the contender's actor system, creates the actors and handshakes them (untimed); an invocation is one run of the game,
/// verified against what it should have delivered (count and checksum), throwing on a mismatch so the benchmark fails;
/// the global cleanup checks the totals of every run and shuts the system down.
/// </summary>
/// <remarks>
/// Each scenario declares OperationsPerInvoke = the messages (or hops) of one run at its default size, so the reported
/// time per operation is per message, and the suite's msg/s and CPU-per-message columns read it as they read a path's.
/// </remarks>
public abstract class ActorBenchmark : IVerifiedBenchmark
{
    private IActorContender? _contender; // set by the global setup, cleared by the global cleanup: the engine's thread only
    private WorkloadCpuListener? _cpu;   // likewise
    private RunTotals _totals;           // what the verified runs delivered, added up: likewise

    [ParamsSource(nameof(Contenders))]
    public string Contender { get; set; } = "BatchDrainMailbox";

    /// <summary>Gets how many invocations ran the game and passed verification (the CI test checks it).</summary>
    public int VerifiedRuns { get; private set; }

    /// <summary>Gets whether the global cleanup checked the totals of every verified run before it shut the system down.</summary>
    public bool VerifiedCompletion { get; private set; }

    /// <summary>Gets the case's name for failure messages.</summary>
    protected abstract string Scenario { get; }

    /// <summary>Gets what one run must deliver: its messages (or hops) and checksum.</summary>
    private protected abstract RunTotals Expected { get; }

    /// <summary>The contenders every actor scenario measures.</summary>
    public static IEnumerable<string> Contenders() => ActorContenders.Names;

    [GlobalSetup]
    public void BuildSystem()
    {
        var contender = ActorContenders.Registry[Contender].Build.Create();
        try
        {
            SetUp(contender);
        }
        catch
        {
            contender.Dispose(); // a failed setup leaves no actor system running: the cleanup may never come
            throw;
        }

        _contender = contender;
        _cpu = WorkloadCpuListener.StartIfRequested(CaseKey.Of(this));
    }

    [GlobalCleanup]
    public void ShutDownSystem()
    {
        try
        {
            var expected = Expected;
            var total = new RunTotals(expected.Delivered * VerifiedRuns, expected.Checksum * VerifiedRuns);
            if (_contender is not null && _totals != total)
            {
                throw new InvalidOperationException($"{Scenario}: {VerifiedRuns} runs delivered {_totals} in all, expected {total}.");
            }

            VerifiedCompletion = _contender is not null;
        }
        finally
        {
            _contender?.Dispose();
            _contender = null;
            _cpu?.Dispose(); // writes the case's CPU sample beside the results
            _cpu = null;
        }
    }

    /// <summary>Creates the scenario's actors and handshakes them.</summary>
    private protected abstract void SetUp(IActorContender contender);

    /// <summary>One run of the game.</summary>
    private protected abstract RunTotals Run(IActorContender contender);

    /// <summary>Runs the game once and verifies what it delivered.</summary>
    protected void RunAndVerify()
    {
        var contender = _contender ?? throw new InvalidOperationException("The actor system was not built: GlobalSetup did not run.");
        var actual = Run(contender);
        var expected = Expected;
        if (actual != expected)
        {
            throw new InvalidOperationException(
                $"{Scenario}: delivered {actual.Delivered} with checksum {actual.Checksum}, expected {expected.Delivered} and {expected.Checksum}.");
        }

        _totals = new RunTotals(_totals.Delivered + actual.Delivered, _totals.Checksum + actual.Checksum);
        VerifiedRuns++;
    }
}
