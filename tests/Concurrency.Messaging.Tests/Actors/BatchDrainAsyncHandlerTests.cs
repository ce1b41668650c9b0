namespace Concurrency.Messaging.Tests.Actors;

/// <summary>The whole actor contract again, each handler awaiting before it runs.</summary>
public sealed class BatchDrainAsyncHandlerTests : MailboxContractTests
{
    protected override MailboxKind Kind => MailboxKind.BatchDrain;

    protected override bool AwaitInHandler => true;
}
