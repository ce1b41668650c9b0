namespace Concurrency.Messaging.Actors;

/// <summary>What telling a full bounded mailbox does. Nothing is ever dropped silently.</summary>
public enum MailboxFullMode
{
    /// <summary><see cref="ActorRef{T}.Tell"/> blocks and <see cref="ActorRef{T}.TellAsync"/> waits until there is room.</summary>
    Wait,

    /// <summary><see cref="ActorRef{T}.Tell"/> throws <see cref="MailboxFullException"/>; <see cref="ActorRef{T}.TryTell"/> returns <see langword="false"/>.</summary>
    Reject,
}
