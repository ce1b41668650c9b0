namespace Concurrency.Messaging.Tests.Linq;

/// <summary>The batch-drain operator with its consumer run as thread-pool turns.</summary>
public sealed class ObserveOnPooledLockedQueueTests : PooledPipeOperatorContractTests
{
    protected override PipeKind Kind => PipeKind.BatchDrainQueue;
}
