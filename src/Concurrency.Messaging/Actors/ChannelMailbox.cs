using System.Threading.Channels;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// The seed's mailbox: a bounded channel, with Proto.Actor's idle/scheduled status beside it. A post that finds the actor
/// idle claims the status with a compare-and-swap and schedules a turn. A turn that finds the channel empty releases the
/// status and then looks again, claiming it back if a message slipped in between: both sides write before they read, with
/// full fences, so one of them always sees the other and no wake-up is lost.
/// </summary>
internal sealed class ChannelMailbox<T> : Mailbox<T>
{
    private const int Idle = 0, Scheduled = 1;

    private readonly Channel<Envelope<T>> _channel;
    private int _status; // Idle or Scheduled (Interlocked): Scheduled while a turn is queued or running

    public ChannelMailbox(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id)
        : base(system, factory, options, id)
    {
        _channel = Channel.CreateBounded<Envelope<T>>(new BoundedChannelOptions(options.Capacity ?? ActorOptions.DefaultChannelCapacity)
        {
            SingleReader = true,
            FullMode = BoundedChannelFullMode.Wait,
            AllowSynchronousContinuations = false,
        });
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

    protected override void CloseQueue()
    {
        _channel.Writer.TryComplete();
        WakeIfIdle(); // an idle actor must run once more to find the channel completed and terminate
    }

    protected override LaneTake Take(ref Slot<Envelope<T>>[] batch, int most, out int count, out Envelope<T> one)
    {
        one = default;
        var reader = _channel.Reader;
        while (true)
        {
            count = 0;
            while (count < most && reader.TryRead(out var envelope))
            {
                if (count == batch.Length)
                {
                    Array.Resize(ref batch, Math.Min(Math.Max(batch.Length * 2, 16), most)); // a throughput below 16 caps the first array too
                }

                batch[count++].Value = envelope;
            }

            if (count > 0)
            {
                return LaneTake.Taken;
            }

            if (reader.Completion.IsCompleted)
            {
                return LaneTake.Completed; // closed and empty
            }

            Interlocked.Exchange(ref _status, Idle);
            var more = reader.TryPeek(out _) || reader.Completion.IsCompleted;
            if (!more || Interlocked.CompareExchange(ref _status, Scheduled, Idle) != Idle)
            {
                return LaneTake.Idle; // nothing came, or a post came and scheduled a turn of its own
            }
        }
    }

    private void WakeIfIdle()
    {
        if (Interlocked.CompareExchange(ref _status, Scheduled, Idle) == Idle)
        {
            Schedule();
        }
    }
}
