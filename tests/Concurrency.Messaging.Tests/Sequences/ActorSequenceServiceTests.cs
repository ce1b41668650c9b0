namespace Concurrency.Messaging.Tests.Sequences;

/// <summary>The contract for the Actor kind, plus what owning an actor adds: its lifetime follows the service's.</summary>
public abstract class ActorSequenceServiceTests : SequenceServiceContractTests
{
    protected sealed override SequenceServiceKind Kind => SequenceServiceKind.Actor;

    protected abstract override MailboxKind? Mailbox { get; }

    [Fact]
    public async Task DisposeAsync_RequestsAlreadySent_AllAnsweredThenActorGone()
    {
        var service = Create();
        var sent = Enumerable.Range(0, 100).Select(_ => service.NextAsync(Token).AsTask()).ToArray();

        await service.DisposeAsync().AsTask().DefaultTimeout();
        var identities = await Task.WhenAll(sent).DefaultTimeout();

        Assert.Equal(Enumerable.Range(1, 100).Select(i => (long)i), identities.Order());
        Assert.Equal(0, System.ActorCount);
        Assert.Equal(0, System.FailureCount);
    }

    [Fact]
    public async Task NextAsync_SystemShutDown_ActorStopped()
    {
        var service = Create();
        await Next(service);

        await System.ShutdownAsync(cancellationToken: Token).DefaultTimeout();

        await Assert.ThrowsAsync<ActorStoppedException>(() => Next(service));
    }

    [Fact]
    public async Task NextAsync_AtMaxValue_ActorKeepsRunningWithNoFailureReported()
    {
        var service = Create();
        await Update(service, long.MaxValue);

        await Assert.ThrowsAsync<InvalidOperationException>(() => Next(service));

        Assert.Equal(0, System.FailureCount);
        Assert.Equal(1, System.ActorCount);
        await Update(service, 5); // still answering
    }
}
