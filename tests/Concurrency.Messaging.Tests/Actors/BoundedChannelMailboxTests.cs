namespace Concurrency.Messaging.Tests.Actors;

public sealed class BoundedChannelMailboxTests : MailboxContractTests
{
    protected override MailboxKind Kind => MailboxKind.BoundedChannel;
}
