namespace Concurrency.Messaging.Tests.Linq;

/// <summary>The ring operator with its consumer run as thread-pool turns: the same Rx grammar, no thread of its own.</summary>
public sealed class ObserveOnPooledRingTests : PooledPipeOperatorContractTests
{
    protected override PipeKind Kind => PipeKind.Ring;

    protected override int? Capacity => 256;
}
