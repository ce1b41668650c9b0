namespace Concurrency.Messaging.Tests.Sequences;

/// <summary>
/// The behaviour every sequence service promises (see <see cref="ISequenceService"/>). Each kind runs this whole suite
/// through a short subclass. Services are disposed, and the actor system shut down, with a bounded wait after each test.
/// </summary>
public abstract class SequenceServiceContractTests : IAsyncLifetime
{
    private const int Clients = 8;
    private const int RequestsPerClient = 10_000;

    private readonly List<ISequenceService> _services = []; // the test's thread only: what DisposeAsync cleans up
    private ActorSystem? _system;                           // likewise: made on the first Actor-kind service

    protected abstract SequenceServiceKind Kind { get; }

    /// <summary>Gets the Actor kind's mailbox; <see langword="null"/> for the other kinds.</summary>
    protected virtual MailboxKind? Mailbox => null;

    protected static CancellationToken Token => TestContext.Current.CancellationToken;

    protected ActorSystem System => _system ??= new ActorSystem();

    public ValueTask InitializeAsync() => default;

    public async ValueTask DisposeAsync()
    {
        foreach (var service in _services)
        {
            await service.DisposeAsync().AsTask().DefaultTimeout();
        }

        if (_system is { } system)
        {
            await system.ShutdownAsync(cancellationToken: Token).DefaultTimeout();
        }

        GC.SuppressFinalize(this);
    }

    [Fact]
    public async Task NextAsync_Fresh_StartsAtOneAndCountsUp()
    {
        var service = Create();

        Assert.Equal(1, await Next(service));
        Assert.Equal(2, await Next(service));
        Assert.Equal(3, await Next(service));
    }

    [Fact]
    public async Task UpdateAsync_AboveLast_NextIsOneMoreThanTheUpdate()
    {
        var service = Create();
        await Next(service);

        await Update(service, 1_000);

        Assert.Equal(1_001, await Next(service));
    }

    [Fact]
    public async Task UpdateAsync_AtOrBelowLast_NeverLowers()
    {
        var service = Create();
        await Update(service, 10);

        await Update(service, 5);
        await Update(service, 10);
        await Update(service, 0);

        Assert.Equal(11, await Next(service));
    }

    [Fact]
    public void UpdateAsync_NegativeValue_ThrowsArgumentOutOfRange()
    {
        var service = Create();

        var thrown = Assert.Throws<ArgumentOutOfRangeException>(() => { _ = service.UpdateAsync(-1, Token).AsTask(); }); // thrown by the call, not the task

        Assert.Equal("value", thrown.ParamName);
    }

    [Fact]
    public async Task NextAsync_AtMaxValue_FaultsAndChangesNothing()
    {
        var service = Create();
        await Update(service, long.MaxValue);

        await Assert.ThrowsAsync<InvalidOperationException>(() => Next(service));
        await Assert.ThrowsAsync<InvalidOperationException>(() => Next(service));
        await Update(service, 5);
        await Assert.ThrowsAsync<InvalidOperationException>(() => Next(service));
    }

    [Fact]
    public async Task Requests_CancelledToken_CancelledWithoutEffect()
    {
        var service = Create();
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => service.NextAsync(cancelled.Token).AsTask().DefaultTimeout());
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => service.UpdateAsync(50, cancelled.Token).AsTask().DefaultTimeout());

        Assert.Equal(1, await Next(service));
    }

    [Fact]
    public async Task ConcurrentClients_NextAndUpdate_UniqueIncreasingAndAboveAcknowledgedUpdates()
    {
        var service = Create();
        var run = new ClientRun(Clients, RequestsPerClient);

        await run.RunAsync(service, Token).DefaultTimeout();

        Assert.True(run.Identities > RequestsPerClient * Clients / 2, $"only {run.Identities} identities were asked for");
        Assert.True(run.Updates > 0);
        Assert.Equal(0, run.NotIncreasing);
        Assert.Equal(0, run.AtOrBelowAcknowledgedUpdate);
        Assert.Equal(run.Identities, run.DistinctIdentities());
    }

    [Fact]
    public async Task DisposeAsync_ThenRequests_ObjectDisposed()
    {
        var service = Create();
        await Next(service);

        await service.DisposeAsync().AsTask().DefaultTimeout();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => Next(service));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => Update(service, 10));
    }

    [Fact]
    public async Task DisposeAsync_Twice_SecondDoesNothing()
    {
        var service = Create();

        await service.DisposeAsync().AsTask().DefaultTimeout();
        await service.DisposeAsync().AsTask().DefaultTimeout();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => Next(service));
    }

    protected static Task<long> Next(ISequenceService service) => service.NextAsync(Token).AsTask().DefaultTimeout();

    protected static Task Update(ISequenceService service, long value) => service.UpdateAsync(value, Token).AsTask().DefaultTimeout();

    /// <summary>Creates the service under test; it is disposed after the test.</summary>
    protected ISequenceService Create()
    {
        var service = SequenceService.Create(Kind, Kind == SequenceServiceKind.Actor ? System : null, Mailbox);
        _services.Add(service);
        return service;
    }
}
