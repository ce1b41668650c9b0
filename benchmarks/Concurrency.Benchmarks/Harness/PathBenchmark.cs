using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Paths;

namespace Concurrency.Benchmarks.Harness;

/// <summary>
/// The shape every throughput scenario shares: messages preallocated once; a fresh path built before each invocation
/// (threads, pipe, subscription: all outside the measurement); one invocation moves <see cref="MessageCount"/> messages end
/// to end and then checks every consumer's count and checksum, throwing on a mismatch so the benchmark fails.
/// Jobs run one invocation per iteration (the harness config sets it), so the reported time per operation is per message.
/// </summary>
public abstract class PathBenchmark
{
    public const int DefaultMessageCount = 1_000_000;

    private IMessagePath? _path;

    /// <summary>Gets or sets the messages per invocation; the benchmarks' OperationsPerInvoke assumes the default.</summary>
    public int MessageCount { get; set; } = DefaultMessageCount;

    /// <summary>Gets how many invocations moved every message and passed verification (the CI test checks it).</summary>
    public int VerifiedRuns { get; private set; }

    protected Message[] Messages { get; private set; } = [];

    /// <summary>Gets the case's name for failure messages.</summary>
    protected abstract string Scenario { get; }

    [GlobalSetup]
    public void AllocateMessages() => Messages = Message.Preallocate(MessageCount);

    [IterationSetup]
    public void BuildPath() => _path = CreatePath();

    [IterationCleanup]
    public void DisposePath()
    {
        _path?.Dispose();
        _path = null;
    }

    /// <summary>Runs the path once and verifies what it delivered.</summary>
    protected void Transfer()
    {
        var path = _path ?? throw new InvalidOperationException("The path was not built: IterationSetup did not run.");
        path.Run(Messages);
        if (path.SharesWork)
        {
            Delivery.VerifyShared(path.Consumers, MessageCount, Scenario);
        }
        else
        {
            Delivery.VerifyEach(path.Consumers, MessageCount, Scenario, path.Ordered);
        }

        VerifiedRuns++;
    }

    protected abstract IMessagePath CreatePath();
}
