using System.Threading.Channels;
using Concurrency.Messaging.Internal;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// The seed's mailbox: a bounded channel, with Proto.Actor's idle/scheduled status beside it (see
/// <see cref="ChannelTurnQueue{T}"/>, which says why the channel cannot keep it). A post that finds the actor idle claims
/// the status and schedules a turn; a turn that finds the channel empty releases it and looks again (see
/// <see cref="IdleFlag"/>), so no wake-up is lost.
/// </summary>
internal sealed class ChannelMailbox<T> : Mailbox<T>
{
    private readonly Channel<Envelope<T>> _channel;
    private ChannelTurnQueue<Envelope<T>> _queue; // used in place: the turn takes from it, posts claim its flag

    public ChannelMailbox(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id)
        : base(system, factory, options, id)
    {
        _channel = Channel.CreateBounded<Envelope<T>>(new BoundedChannelOptions(options.Capacity ?? ActorOptions.DefaultChannelCapacity)
        {
            SingleReader = true,
            FullMode = BoundedChannelFullMode.Wait,
            AllowSynchronousContinuations = false,
        });
        _queue = new ChannelTurnQueue<Envelope<T>>(_channel.Reader, batches: true);
    }

    public override MailboxKind MailboxKind => MailboxKind.BoundedChannel;

    protected override bool TryPost(in Envelope<T> envelope, out bool full)
    {
        if (_channel.Writer.TryWrite(envelope))
        {
            full = false;
            WakeIfIdle();
            return true;
        }

        // The writer is completed only after the actor stopped accepting, so an accepting actor's refusal means full.
        full = IsAccepting;
        return false;
    }

    protected override async ValueTask<bool> PostWaitingAsync(Envelope<T> envelope, CancellationToken cancellationToken)
    {
        try
        {
            await _channel.Writer.WriteAsync(envelope, cancellationToken).ConfigureAwait(false);
        }
        catch (ChannelClosedException)
        {
            return false;
        }

        WakeIfIdle();
        return true;
    }

    internal override void CloseQueue()
    {
        _channel.Writer.TryComplete();
        _queue.WritersDone();
        WakeIfIdle(); // an idle actor must run once more to find the channel completed and terminate
    }

    public override void RunTurn() => RunTurn(ref _queue);

    private void WakeIfIdle() => WakeIfIdle(ref _queue);
}
