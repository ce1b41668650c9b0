namespace Concurrency.Messaging.Tests.Sequences;

public sealed class LockerSequenceServiceTests : LockingSequenceServiceTests
{
    protected override SequenceServiceKind Kind => SequenceServiceKind.Locker;
}
