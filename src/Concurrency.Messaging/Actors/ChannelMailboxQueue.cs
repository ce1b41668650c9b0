using System.Threading.Channels;
using Concurrency.Messaging.Internal;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// <see cref="MailboxKind.BoundedChannel"/>, the seed's mailbox: a bounded channel, with Proto.Actor's idle/scheduled
/// status beside it (see <see cref="ChannelTurnQueue{T}"/>, which says why the channel cannot keep it). A post that finds
/// the actor idle claims the status and schedules a turn; a turn that finds the channel empty releases it and looks again
/// (see <see cref="IdleFlag"/>), so no wake-up is lost. A sender waiting for room waits in the channel's writer, which
/// hands its message over as the turn reads: first come, first in.
/// </summary>
internal struct ChannelMailboxQueue<T> : IMailboxQueue<T>
{
    private Channel<Envelope<T>> _channel;           // set by Open
    private ChannelTurnQueue<Envelope<T>> _turns;    // used in place: the turn takes from it, posts claim its flag

    public static MailboxKind Kind => MailboxKind.BoundedChannel;

    public void Open(ActorOptions options, ITurn actor)
    {
        _channel = Channel.CreateBounded<Envelope<T>>(new BoundedChannelOptions(options.Capacity ?? ActorOptions.DefaultChannelCapacity)
        {
            SingleReader = true,
            FullMode = BoundedChannelFullMode.Wait,
            AllowSynchronousContinuations = false,
        });
        _turns = new ChannelTurnQueue<Envelope<T>>(_channel.Reader, batches: true);
    }

    public bool TryPost(in Envelope<T> envelope, ITurn actor)
    {
        if (!_channel.Writer.TryWrite(envelope))
        {
            return false;
        }

        WakeIfIdle(actor);
        return true;
    }

    public readonly ValueTask<RoomWait> WaitForRoomAsync(Envelope<T> envelope, CancellationToken cancellationToken) =>
        WriteAsync(_channel.Writer, envelope, cancellationToken);

    public void WakeAfterWait(ITurn actor) => WakeIfIdle(actor);

    public void Close(ITurn actor)
    {
        _channel.Writer.TryComplete(); // fails the waiting writers too
        _turns.WritersDone();
        WakeIfIdle(actor); // an idle actor must run once more to find the channel completed and terminate
    }

    public TurnTake Take(ref Slot<Envelope<T>>[] batch, int most, bool idleIfEmpty, out int count, out Envelope<T> one) =>
        _turns.Take(ref batch, most, idleIfEmpty, out count, out one);

    public readonly bool HasWork() => _turns.HasWork();

    public bool TryClaimIdle() => _turns.TryClaimIdle();

    private static async ValueTask<RoomWait> WriteAsync(ChannelWriter<Envelope<T>> writer, Envelope<T> envelope, CancellationToken cancellationToken)
    {
        try
        {
            await writer.WriteAsync(envelope, cancellationToken).ConfigureAwait(false);
            return RoomWait.Posted;
        }
        catch (ChannelClosedException)
        {
            return RoomWait.Closed;
        }
    }

    private void WakeIfIdle(ITurn actor) =>
        TurnRunner.WakeIfIdle<Envelope<T>, ChannelTurnQueue<Envelope<T>>>(actor, ref _turns, mayRunNext: true);
}
