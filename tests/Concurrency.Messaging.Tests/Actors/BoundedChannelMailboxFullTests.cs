namespace Concurrency.Messaging.Tests.Actors;

public sealed class BoundedChannelMailboxFullTests : BoundedMailboxFullTests
{
    protected override MailboxKind Kind => MailboxKind.BoundedChannel;
}
