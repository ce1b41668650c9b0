using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.HandOff.Paths;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// The shape every throughput scenario shares, measured in steady state. The path is built once per case (global setup)
/// and lives across every invocation; an invocation moves one block of <see cref="MessageCount"/> preallocated messages end
/// to end (post them all, then wait, bounded, until every consumer has handled them) and checks each consumer's count,
/// checksum and per-producer order for that block, throwing on a mismatch so the benchmark fails. The global cleanup
/// completes the path, waits for its final completion and checks the totals of every block it moved.
/// </summary>
/// <remarks>
/// BenchmarkDotNet chooses how many invocations fill an iteration; the benchmark methods declare
/// OperationsPerInvoke = the block size, so the reported time per operation is per message.
/// <para>
/// Code quality of the harness loops, chosen loop by loop: the posting loops run once per invocation, so they are left to
/// tiered compilation, which treats them as it treats the contenders' own code (dynamic PGO included). A fast case calls
/// them hundreds of times in BenchmarkDotNet's pilot and 8 warm-up iterations, past the 30 calls that promote them to tier 1;
/// a case slow enough to call them fewer times still runs each block's thousands of iterations through on-stack
/// replacement into optimized code, and spends hundreds of nanoseconds or more per message in the contender, next to
/// which the loop is noise.
/// Loops a thread enters once for the whole case (the raw ring's consumer) can only be reached by on-stack replacement,
/// so those carry AggressiveOptimization instead.
/// </para>
/// </remarks>
public abstract class PathBenchmark : IVerifiedBenchmark
{
    public const int DefaultMessageCount = 1 << 16;

    private IMessagePath? _path;        // set by the global setup, cleared by the global cleanup: the engine's thread only
    private WorkloadCpuListener? _cpu;  // likewise

    /// <summary>Gets or sets the messages per invocation (one block); OperationsPerInvoke assumes the scenario's default.</summary>
    public int MessageCount { get; set; } = DefaultMessageCount;

    /// <summary>Gets how many invocations moved their block and passed verification (the CI test checks it).</summary>
    public int VerifiedRuns { get; private set; }

    /// <summary>Gets whether the global cleanup saw the path complete and verified every block it moved.</summary>
    public bool VerifiedCompletion { get; private set; }

    protected Message[] Messages { get; private set; } = [];

    /// <summary>Gets the case's name for failure messages.</summary>
    protected abstract string Scenario { get; }

    [GlobalSetup]
    public void BuildPath()
    {
        _path = CreatePath();
        Messages = Message.Preallocate(MessageCount, _path.Producers);
        _cpu = WorkloadCpuListener.StartIfRequested(CaseKey.Of(this));
    }

    [GlobalCleanup]
    public void CompletePath()
    {
        try
        {
            if (_path is { } path)
            {
                path.Complete();
                path.Consumers.VerifyTotal(VerifiedRuns, Messages.Length, Scenario);
                VerifiedCompletion = true;
            }
        }
        finally
        {
            _path?.Dispose();
            _path = null;
            _cpu?.Dispose(); // writes the case's CPU sample beside the results
            _cpu = null;
        }
    }

    /// <summary>Moves one block end to end and verifies what it delivered.</summary>
    protected void Transfer()
    {
        var path = _path ?? throw new InvalidOperationException("The path was not built: GlobalSetup did not run.");
        var consumers = path.Consumers;
        consumers.Arm(Messages.Length);
        path.Post(Messages);
        consumers.WaitForBlock(Scenario);
        consumers.VerifyBlock(Scenario);
        VerifiedRuns++;
    }

    protected abstract IMessagePath CreatePath();
}
