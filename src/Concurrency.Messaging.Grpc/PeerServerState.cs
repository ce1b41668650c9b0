namespace Concurrency.Messaging.Grpc;

/// <summary>What every stream of one <see cref="PeerServer"/> shares: its options, its sessions, its counters, and the token that fires when it stops.</summary>
internal sealed class PeerServerState(PeerServerOptions options, CancellationToken stopping)
{
    private long _handled;
    private long _duplicates;
    private long _failed;

    public PeerServerOptions Options { get; } = options;

    public PeerSessions Sessions { get; } = new(options.SessionRetention);

    public CancellationToken Stopping { get; } = stopping;

    public long Handled => Interlocked.Read(ref _handled);

    public long Duplicates => Interlocked.Read(ref _duplicates);

    public long Failed => Interlocked.Read(ref _failed);

    public void CountHandled(int count) => Interlocked.Add(ref _handled, count);

    public void CountDuplicate() => Interlocked.Increment(ref _duplicates);

    public void CountFailed() => Interlocked.Increment(ref _failed);
}
