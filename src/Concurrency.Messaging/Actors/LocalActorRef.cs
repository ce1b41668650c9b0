namespace Concurrency.Messaging.Actors;

/// <summary>
/// The reference a spawn returns: a thin handle that forwards to the actor's <see cref="Mailbox{T}"/>, which posts, runs
/// the turns and, through its <see cref="ActorCell{T}"/>, supervises and replies. The behaviour answers to the same handle
/// across restarts.
/// </summary>
internal sealed class LocalActorRef<T> : ActorRef<T>
{
    private readonly Mailbox<T> _mailbox;

    public LocalActorRef(Mailbox<T> mailbox) => _mailbox = mailbox;

    internal Mailbox<T> Mailbox => _mailbox;

    public override MailboxKind MailboxKind => _mailbox.MailboxKind;

    public override bool IsStopped => _mailbox.IsStopped;

    public override long DiscardedCount => _mailbox.DiscardedCount;

    public override Task Termination => _mailbox.Termination;

    private protected override string NameCore => _mailbox.Name;

    public override void Tell(T message) => _mailbox.Tell(message);

    public override bool TryTell(T message) => _mailbox.TryTell(message);

    public override ValueTask TellAsync(T message, CancellationToken cancellationToken = default) => _mailbox.TellAsync(message, cancellationToken);

    public override ValueTask<TReply> Ask<TReply>(T message, CancellationToken cancellationToken = default) =>
        _mailbox.Ask<TReply>(message, cancellationToken);

    public override ValueTask<TReply> Ask<TReply>(T message, TimeSpan timeout, CancellationToken cancellationToken = default) =>
        _mailbox.Ask<TReply>(message, timeout, cancellationToken);

    private protected override bool StopCore(ActorStopMode mode) => _mailbox.Stop(mode);
}
