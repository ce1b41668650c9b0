using System.Runtime.CompilerServices;
using System.Threading.Channels;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// The seed's mailbox: a bounded channel. An idle actor waits on <see cref="ChannelReader{T}.WaitToReadAsync"/>, so the
/// channel itself decides, under its lock, that a post must wake it; the wake-up (a continuation the channel queues to the
/// pool) runs the next turn. Nothing is polled and an idle actor holds no thread.
/// </summary>
internal sealed class ChannelMailbox<T> : Mailbox<T>
{
    private readonly Channel<Envelope<T>> _channel;
    private ValueTaskAwaiter<bool> _waiting; // turn: the pending WaitToReadAsync while idle; its result is read once, by the wake-up
    private Action? _wakeUp;                 // turn: created on the first idle wait

    public ChannelMailbox(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id)
        : base(system, factory, options, id)
    {
        _channel = Channel.CreateBounded<Envelope<T>>(new BoundedChannelOptions(options.Capacity ?? ActorOptions.DefaultChannelCapacity)
        {
            SingleReader = true,
            FullMode = BoundedChannelFullMode.Wait,
            AllowSynchronousContinuations = false,
        });

        // The first turn finds the channel empty and waits on it; from then on the channel schedules every turn.
        Schedule();
    }

    public override MailboxKind MailboxKind => MailboxKind.BoundedChannel;

    protected override bool TryPost(in Envelope<T> envelope, out bool full)
    {
        if (_channel.Writer.TryWrite(envelope))
        {
            full = false;
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
            return true;
        }
        catch (ChannelClosedException)
        {
            return false;
        }
    }

    protected override void CloseQueue() => _channel.Writer.TryComplete();

    protected override LaneTake Take(ref Slot<Envelope<T>>[] batch, int most, out int count)
    {
        var reader = _channel.Reader;
        while (true)
        {
            count = 0;
            while (count < most && reader.TryRead(out var envelope))
            {
                if (count == batch.Length)
                {
                    Array.Resize(ref batch, Math.Clamp(batch.Length * 2, 16, most));
                }

                batch[count++].Value = envelope;
            }

            if (count > 0)
            {
                return LaneTake.Taken;
            }

#pragma warning disable CA2012 // consumed exactly once: here if already completed, else by WakeUp
            var waiting = reader.WaitToReadAsync().GetAwaiter();
#pragma warning restore CA2012
            if (!waiting.IsCompleted)
            {
                _waiting = waiting;
                waiting.UnsafeOnCompleted(_wakeUp ??= WakeUp);
                return LaneTake.Idle;
            }

            if (!waiting.GetResult())
            {
                return LaneTake.Completed;
            }
        }
    }

    /// <summary>The channel's continuation, on a pool thread: consume the wait's result, then run the turn here.</summary>
    private void WakeUp()
    {
        var waiting = _waiting;
        _waiting = default;
        waiting.GetResult();
        Execute();
    }
}
