namespace Concurrency.Messaging.Tests.Sequences;

/// <summary>What <see cref="SequenceService.Create"/> refuses, and that each kind is what it says.</summary>
public sealed class SequenceServiceFactoryTests : IAsyncLifetime
{
    private readonly ActorSystem _system = new();

    public ValueTask InitializeAsync() => default;

    public async ValueTask DisposeAsync() =>
        await _system.ShutdownAsync(cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();

    [Fact]
    public void Create_ActorWithoutSystem_ThrowsArgumentNull()
    {
        var thrown = Assert.Throws<ArgumentNullException>(() => SequenceService.Create(SequenceServiceKind.Actor));

        Assert.Equal("system", thrown.ParamName);
    }

    [Theory]
    [InlineData(SequenceServiceKind.Simple)]
    [InlineData(SequenceServiceKind.Sequence)]
    [InlineData(SequenceServiceKind.Locker)]
    public void Create_SystemForKindWithoutActor_ThrowsArgument(SequenceServiceKind kind)
    {
        var thrown = Assert.Throws<ArgumentException>(() => SequenceService.Create(kind, _system));

        Assert.Equal("system", thrown.ParamName);
        Assert.Equal(0, _system.ActorCount);
    }

    [Theory]
    [InlineData(SequenceServiceKind.Simple)]
    [InlineData(SequenceServiceKind.Sequence)]
    [InlineData(SequenceServiceKind.Locker)]
    public void Create_MailboxForKindWithoutActor_ThrowsArgument(SequenceServiceKind kind)
    {
        var thrown = Assert.Throws<ArgumentException>(() => SequenceService.Create(kind, mailbox: MailboxKind.BatchDrain));

        Assert.Equal("mailbox", thrown.ParamName);
    }

    [Fact]
    public void Create_UnknownKind_ThrowsArgumentOutOfRange()
    {
        var thrown = Assert.Throws<ArgumentOutOfRangeException>(() => SequenceService.Create((SequenceServiceKind)42));

        Assert.Equal("kind", thrown.ParamName);
    }

    [Fact]
    public void Create_UnknownMailbox_ThrowsArgumentOutOfRangeAndSpawnsNothing()
    {
        var thrown = Assert.Throws<ArgumentOutOfRangeException>(() => SequenceService.Create(SequenceServiceKind.Actor, _system, (MailboxKind)42));

        Assert.Equal("mailbox", thrown.ParamName);
        Assert.Equal(0, _system.ActorCount);
    }

    [Fact]
    public async Task Create_SystemShutDown_ThrowsObjectDisposed()
    {
        await _system.ShutdownAsync(cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();

        Assert.Throws<ObjectDisposedException>(() => SequenceService.Create(SequenceServiceKind.Actor, _system));
    }

    [Theory]
    [InlineData(null)]
    [InlineData(MailboxKind.BatchDrain)]
    [InlineData(MailboxKind.BoundedChannel)]
    public async Task Create_Actor_SpawnsOneActorOnTheSystemWithTheMailbox(MailboxKind? mailbox)
    {
        var service = SequenceService.Create(SequenceServiceKind.Actor, _system, mailbox);

        Assert.Equal(1, _system.ActorCount);
        await service.DisposeAsync().AsTask().DefaultTimeout();
        Assert.Equal(0, _system.ActorCount);
    }
}
