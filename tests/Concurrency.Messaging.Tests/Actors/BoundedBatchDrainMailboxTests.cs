namespace Concurrency.Messaging.Tests.Actors;

public sealed class BoundedBatchDrainMailboxTests : MailboxContractTests
{
    protected override MailboxKind Kind => MailboxKind.BoundedBatchDrain;
}
