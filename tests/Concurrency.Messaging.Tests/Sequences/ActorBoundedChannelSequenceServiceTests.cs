namespace Concurrency.Messaging.Tests.Sequences;

public sealed class ActorBoundedChannelSequenceServiceTests : ActorSequenceServiceTests
{
    protected override MailboxKind? Mailbox => MailboxKind.BoundedChannel;
}
