using Concurrency.Messaging.Actors;

namespace Concurrency.Messaging.Sequences;

/// <summary>Creates sequence services (see <see cref="ISequenceService"/>).</summary>
public static class SequenceService
{
    /// <summary>Creates a sequence service of the given kind, starting at 0 (the first identity is 1).</summary>
    /// <param name="kind">How the service serializes its requests.</param>
    /// <param name="system">The actor system to run the <see cref="SequenceServiceKind.Actor"/> kind's actor on; required
    /// for that kind, refused for the others. Disposing the service stops its actor, not the system.</param>
    /// <param name="mailbox">The actor's mailbox, for the <see cref="SequenceServiceKind.Actor"/> kind only; defaults to
    /// <see cref="MailboxKind.BatchDrain"/>. A <see cref="MailboxKind.BoundedChannel"/> mailbox has the seed's 1024 slots.</param>
    /// <returns>The service.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="kind"/> or <paramref name="mailbox"/> is not a defined value.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="kind"/> is <see cref="SequenceServiceKind.Actor"/> and <paramref name="system"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="system"/> or <paramref name="mailbox"/> was given for a kind that runs no actor.</exception>
    /// <exception cref="ObjectDisposedException"><paramref name="system"/> was shut down.</exception>
    public static ISequenceService Create(SequenceServiceKind kind, ActorSystem? system = null, MailboxKind? mailbox = null)
    {
        if (!Enum.IsDefined(kind))
        {
            throw new ArgumentOutOfRangeException(nameof(kind), kind, "Unknown sequence service kind.");
        }

        if (kind == SequenceServiceKind.Actor)
        {
            if (system is null)
            {
                throw new ArgumentNullException(nameof(system), "The Actor kind runs its actor on an actor system: pass one.");
            }

            var queue = mailbox ?? MailboxKind.BatchDrain;
            if (!Enum.IsDefined(queue))
            {
                throw new ArgumentOutOfRangeException(nameof(mailbox), queue, "Unknown mailbox kind.");
            }

            return new ActorSequenceService(system, queue);
        }

        if (system is not null)
        {
            throw new ArgumentException($"The {kind} kind runs no actor; pass a system only for the {SequenceServiceKind.Actor} kind.", nameof(system));
        }

        if (mailbox is not null)
        {
            throw new ArgumentException($"The {kind} kind has no mailbox; choose one only for the {SequenceServiceKind.Actor} kind.", nameof(mailbox));
        }

        return kind switch
        {
            SequenceServiceKind.Simple => new SimpleSequenceService(),
            SequenceServiceKind.Sequence => new CounterSequenceService(),
            _ => new LockerSequenceService(),
        };
    }
}
