using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// The deliver-count-fault rules, written once for every consumer: a pooled or dedicated pipe consumer, an actor's mailbox,
/// a pipe whose consumer Rx runs. Messages are handed over while the owner is not stopping; a handler's throw goes to the
/// owner (a pipe faults, an actor's supervisor decides) and delivery goes on past the message that threw; once stopping,
/// the rest is counted off.
/// </summary>
/// <remarks>
/// The owner is a struct (the type parameter <c>TOwner</c> of each method), so every call on it is direct and these loops
/// are compiled for each owner: the per-message path has no interface call.
/// </remarks>
internal static class TurnDelivery
{
    /// <summary>
    /// Hands <c>batch[next..end)</c> over while the owner is not stopping, counting off the rest once it is. Returns early if
    /// a handler suspended the turn.
    /// </summary>
    /// <returns>How many messages were handed over and returned (the one that threw, and those counted off, excluded).</returns>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static int DeliverBatch<T, TOwner>(ref TOwner owner, Slot<T>[] batch, ref int next, int end)
        where TOwner : struct, ITurnOwner<T>
    {
        var handled = 0;
        while (next < end)
        {
            if (owner.IsStopping)
            {
                owner.Unhandled(batch, next, end);
                next = end;
                return handled;
            }

            var start = next;
            try
            {
                owner.Deliver(batch, ref next, end);
                handled += next - start;
            }
            catch (Exception ex)
            {
                // The contract moves next past a message before handing it over; an owner that threw before it did
                // must not get the same message again, or a restarting actor would fail on it for ever.
                if (next == start)
                {
                    next++;
                }

                handled += next - start - 1; // next is past the message that threw
                owner.Failed(ex);
            }

            if (owner.IsSuspended)
            {
                return handled;
            }
        }

        return handled;
    }

    /// <summary>Hands one message over, or counts it off once the owner is stopping.</summary>
    /// <returns>Whether it was handed over and returned.</returns>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static bool DeliverOne<T, TOwner>(ref TOwner owner, in T message)
        where TOwner : struct, ITurnOwner<T>
    {
        if (owner.IsStopping)
        {
            owner.UnhandledOne(in message);
            return false;
        }

        try
        {
            owner.DeliverOne(in message);
            return true;
        }
        catch (Exception ex)
        {
            owner.Failed(ex);
            return false;
        }
    }

    /// <summary>Gives the count so far to the owner: once per turn or batch, before the consumer may be let go.</summary>
    public static void CountHandled<T, TOwner>(ref TOwner owner, ref int handled)
        where TOwner : struct, ITurnOwner<T>
    {
        if (handled != 0)
        {
            owner.Handled(handled);
            handled = 0;
        }
    }
}
