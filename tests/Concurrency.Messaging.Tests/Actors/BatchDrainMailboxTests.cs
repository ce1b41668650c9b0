namespace Concurrency.Messaging.Tests.Actors;

public sealed class BatchDrainMailboxTests : MailboxContractTests
{
    protected override MailboxKind Kind => MailboxKind.BatchDrain;
}
