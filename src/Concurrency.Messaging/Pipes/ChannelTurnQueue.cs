using System.Runtime.CompilerServices;
using System.Threading.Channels;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A consumer's side of a <see cref="Channel{T}"/> under the <see cref="TurnRunner"/>: a channel pipe's consumer, pooled or
/// on its own thread (a batch at a time from a lane of its own, a message at a time from a shared one, freeing its room
/// in a <see cref="LaneRoom"/>), or a channel mailbox (a batch at a time, up to the turn's budget). Nobody waits on the
/// channel's reader: producers write, then notify through the flag kept here.
/// </summary>
/// <remarks>
/// The flag is here because a channel's reader cannot mark its consumer idle atomically with finding itself empty: its
/// "empty" and its waiters are its own, behind its own lock, with no hook for ours; and parking on its asynchronous wait
/// instead would bring back the two .NET 10 bugs <see cref="ChannelPipe{T}"/> is written around (a cancelled read losing an
/// item, a parked reader never woken). So every producer writes, then fences and reads this flag (see
/// <see cref="IdleFlag"/>).
/// <para>
/// The end is this queue's own <see cref="WritersDone"/>, not the reader's <c>Completion</c>: an unbounded channel's
/// <c>TryComplete</c> racing a <c>TryRead</c> of the last item can leave <c>Completion</c> never completed
/// (dotnet/runtime#123544: each side stores, then reads the other's store without a full fence, and both miss), so a
/// consumer that waited for it would never end. The closer completes the writer, then calls <see cref="WritersDone"/>,
/// then wakes the consumer; a take reads the flag before it reads the channel, so a take that saw the flag and then
/// found the channel empty has seen every message (each accepted write happened before the writer's completion).
/// </para>
/// </remarks>
internal struct ChannelTurnQueue<T>(ChannelReader<T> reader, bool batches, LaneRoom? room = null, int lane = 0) : ITurnQueue<T>
{
    private const int FirstBatchLength = 16;

    private IdleFlag _idle; // see IdleFlag: producers claim it after writing, the running turn releases it
    private volatile bool _writersDone; // set once by the closer after the writer's completion; read before each look

    /// <summary>
    /// The closer, after completing the channel's writer and before waking the consumer: no message will come, so a take
    /// that then finds the channel empty ends the consumer. Any thread, once or more.
    /// </summary>
    public void WritersDone() => _writersDone = true;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public TurnTake Take(ref Slot<T>[] batch, int most, bool idleIfEmpty, out int count, out T one)
    {
        one = default!;
        while (true)
        {
            count = 0;
            var done = _writersDone; // before the reads: see the remarks
            if (!batches)
            {
                if (reader.TryRead(out one!))
                {
                    room?.Free(lane);
                    return TurnTake.TakenOne;
                }
            }
            else
            {
                while (count < most && reader.TryRead(out var message))
                {
                    if (count == batch.Length)
                    {
                        // A budget below the first length caps the first array too.
                        Array.Resize(ref batch, Math.Min(Math.Max(batch.Length * 2, FirstBatchLength), most));
                    }

                    batch[count++].Value = message;
                    room?.Free(lane);
                }

                if (count > 0)
                {
                    return TurnTake.Taken;
                }
            }

            if (done)
            {
                return TurnTake.Completed; // closed and empty
            }

            if (!idleIfEmpty)
            {
                return TurnTake.Empty;
            }

            if (!_idle.ReleaseThenLook<T, ChannelTurnQueue<T>>(ref this))
            {
                return TurnTake.Idle; // nothing came, or a producer saw Idle and queued the next turn
            }
        }
    }

    public readonly bool HasWork() => _writersDone || reader.TryPeek(out _);

    public bool TryClaimIdle() => _idle.TryClaim();
}
