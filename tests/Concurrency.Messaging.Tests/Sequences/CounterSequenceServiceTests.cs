namespace Concurrency.Messaging.Tests.Sequences;

public sealed class CounterSequenceServiceTests : LockingSequenceServiceTests
{
    protected override SequenceServiceKind Kind => SequenceServiceKind.Sequence;
}
