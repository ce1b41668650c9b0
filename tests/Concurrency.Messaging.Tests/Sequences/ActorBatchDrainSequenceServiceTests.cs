namespace Concurrency.Messaging.Tests.Sequences;

public sealed class ActorBatchDrainSequenceServiceTests : ActorSequenceServiceTests
{
    protected override MailboxKind? Mailbox => MailboxKind.BatchDrain;
}
