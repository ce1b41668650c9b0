namespace Concurrency.Messaging.Tests.Sequences;

public sealed class SimpleSequenceServiceTests : LockingSequenceServiceTests
{
    protected override SequenceServiceKind Kind => SequenceServiceKind.Simple;
}
