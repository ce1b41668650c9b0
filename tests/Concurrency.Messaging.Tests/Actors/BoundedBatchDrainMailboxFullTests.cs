namespace Concurrency.Messaging.Tests.Actors;

public sealed class BoundedBatchDrainMailboxFullTests : BoundedMailboxFullTests
{
    protected override MailboxKind Kind => MailboxKind.BoundedBatchDrain;
}
