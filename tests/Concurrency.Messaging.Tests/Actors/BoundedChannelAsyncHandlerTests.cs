namespace Concurrency.Messaging.Tests.Actors;

/// <summary>The whole actor contract again, on the channel mailbox (its own idle/scheduled status), each handler awaiting before it runs.</summary>
public sealed class BoundedChannelAsyncHandlerTests : MailboxContractTests
{
    protected override MailboxKind Kind => MailboxKind.BoundedChannel;

    protected override bool AwaitInHandler => true;
}
