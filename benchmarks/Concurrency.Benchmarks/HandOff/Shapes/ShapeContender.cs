using System.Reactive.Subjects;
using System.Runtime.CompilerServices;
using System.Threading.Tasks.Dataflow;
using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.HandOff.Shapes;

/// <summary>A small message posted by reference: preallocated, so a run measures the hand-off and not the allocator.</summary>
public sealed class SmallMessage(long value)
{
    public long Value { get; } = value;
}

/// <summary>
/// What the handler keeps. Written by the consumer's handler only; the producer reads <see cref="Sum"/> (Volatile) to wait
/// for a drain, and the rest once the path completed.
/// </summary>
internal sealed class Tally
{
    public long Sum;      // every handler adds the message's value
    public long Count;    // the verifying handler: messages handled
    public long Next;     // the verifying handler: the value the next message must carry (one producer: its order)
    public long Disorder; // the verifying handler: messages that did not carry Next
}

/// <summary>
/// One path in one shape as a user's program holds it: a <c>for</c> loop of posts written against the path's own API,
/// then the path's own complete and completion. Value messages post the loop's counter; reference messages post
/// <see cref="SmallMessage"/>s from a preallocated block of <see cref="Block"/>, taken in turn (message m carries m mod
/// the block), so every round posts the same objects.
/// </summary>
internal abstract class ShapeContender : IDisposable
{
    /// <summary>The reference messages' block: large enough that a ring never holds a message twice.</summary>
    public const int Block = 1 << 20;

    protected ShapeContender(LoopShape shape, Tally tally)
    {
        Shape = shape;
        Tally = tally;
    }

    public LoopShape Shape { get; }

    /// <summary>Gets what the handler keeps.</summary>
    public Tally Tally { get; }

    /// <summary>Builds <paramref name="path"/> in <paramref name="shape"/>, as its registry entry (<see cref="ShapeContenders"/>) says.</summary>
    public static ShapeContender Create(ShapePath path, LoopShape shape)
    {
        var build = ShapeContenders.Registry[path.ToString()].Build;
        var tally = new Tally();
        return shape.Message == ShapeMessage.Value
            ? build.Values(shape, Handler<long>(shape, tally), tally)
            : build.References(shape, Handler<SmallMessage>(shape, tally), tally);
    }

    /// <summary>The sum the handlers reach after messages 0..<paramref name="messages"/>−1 in this shape.</summary>
    public static long SumOf(LoopShape shape, long messages)
    {
        if (shape.Message == ShapeMessage.Value)
        {
            return messages * (messages - 1) / 2;
        }

        var (blocks, rest) = Math.DivRem(messages, Block);
        return (blocks * ((long)Block * (Block - 1) / 2)) + (rest * (rest - 1) / 2);
    }

    /// <summary>Gets the messages posted so far: the next round posts from here, so the verifying handler sees one order.</summary>
    public long Posted { get; private set; }

    /// <summary>Posts the next <paramref name="messages"/> messages.</summary>
    public void Round(int messages)
    {
        PostRange(Posted, Posted + messages);
        Posted += messages;
    }

    /// <summary>Waits, at most <paramref name="limit"/>, until the handler has handled everything posted (its sum says so).</summary>
    public void WaitForHandled(TimeSpan limit, string what)
    {
        var expected = SumOf(Shape, Posted);
        var waited = System.Diagnostics.Stopwatch.StartNew();
        var spinner = default(SpinWait);
        while (Volatile.Read(ref Tally.Sum) != expected)
        {
            if (waited.Elapsed > limit)
            {
                throw new TimeoutException($"{what}: the handler summed {Volatile.Read(ref Tally.Sum):N0} of {expected:N0} within {limit.TotalSeconds:0} s.");
            }

            spinner.SpinOnce();
        }
    }

    /// <summary>Checks what the handler kept against what was posted: the sum, and for the verifying handler the count and order.</summary>
    /// <exception cref="InvalidOperationException">A message was lost, repeated or handled out of order.</exception>
    public void Check(string what)
    {
        var sum = Volatile.Read(ref Tally.Sum);
        var expected = SumOf(Shape, Posted);
        if (sum != expected)
        {
            throw new InvalidOperationException($"{what}: the handlers summed {sum:N0}, not {expected:N0}: messages were lost or repeated.");
        }

        if (Shape.Handler == ShapeHandler.Verifying && (Volatile.Read(ref Tally.Count) != Posted || Volatile.Read(ref Tally.Disorder) != 0))
        {
            throw new InvalidOperationException($"{what}: the handler counted {Tally.Count:N0} of {Posted:N0} messages, {Tally.Disorder:N0} out of order.");
        }
    }

    /// <summary>Posts <paramref name="first"/> up to (not including) <paramref name="end"/>, in order, from the calling thread.</summary>
    public abstract void PostRange(long first, long end);

    /// <summary>Completes the path and waits, at most <paramref name="limit"/>, until the consumer handled everything.</summary>
    public abstract void CompleteAndWait(TimeSpan limit);

    /// <summary>Lets go of what the path holds beyond its completion (a subscription, a spinning consumer).</summary>
    public void Dispose() => DisposeCore();

    protected virtual void DisposeCore()
    {
    }

    protected static void Wait(Task completion, TimeSpan limit, string what)
    {
        if (!completion.Wait(limit))
        {
            throw new TimeoutException($"{what} did not complete within {limit.TotalSeconds:0} s.");
        }
    }

    /// <summary>Message <paramref name="m"/> of the loop: the counter itself, or the block's object (see the class remarks).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    protected static T MessageAt<T>(long m) => typeof(T) == typeof(long) ? (T)(object)m : (T)(object)SmallMessages.Block[(int)(m & (Block - 1))];

    private static Action<T> Handler<T>(LoopShape shape, Tally tally)
    {
        if (typeof(T) == typeof(long))
        {
            Action<long> handler = shape.Handler == ShapeHandler.Trivial
                ? m => tally.Sum += m
                : m =>
                {
                    if (m != tally.Next)
                    {
                        tally.Disorder++;
                    }

                    tally.Next = m + 1;
                    tally.Count++;
                    tally.Sum += m;
                };
            return (Action<T>)(object)handler;
        }

        Action<SmallMessage> byReference = shape.Handler == ShapeHandler.Trivial
            ? m => tally.Sum += m.Value
            : m =>
            {
                var value = m.Value;
                if (value != tally.Next)
                {
                    tally.Disorder++;
                }

                tally.Next = (value + 1) & (Block - 1);
                tally.Count++;
                tally.Sum += value;
            };
        return (Action<T>)(object)byReference;
    }

    internal sealed class ActionBlockContender<T>(LoopShape shape, Action<T> handler, Tally tally) : ShapeContender(shape, tally)
    {
        // How long a block whose handler has taken every message gets to complete before it counts as the Dataflow bug.
        private static readonly TimeSpan MissedCompletionGrace = TimeSpan.FromSeconds(10);

        private readonly ActionBlock<T> _block = new(handler, new ExecutionDataflowBlockOptions { SingleProducerConstrained = true });

        public override void PostRange(long first, long end)
        {
            var block = _block;
            for (var m = first; m < end; m++)
            {
                if (!block.Post(MessageAt<T>(m)))
                {
                    throw new InvalidOperationException("The ActionBlock refused a message.");
                }
            }
        }

        public override void CompleteAndWait(TimeSpan limit)
        {
            _block.Complete();
            if (_block.Completion.Wait(MissedCompletionGrace < limit ? MissedCompletionGrace : limit))
            {
                return;
            }

            if (_block.InputCount == 0 && Volatile.Read(ref Tally.Sum) == SumOf(Shape, Posted))
            {
                throw new MissedCompletionException($"The ActionBlock handled all {Posted:N0} messages but did not complete within {MissedCompletionGrace.TotalSeconds:0} s (docs/runtime-bugs.md).");
            }

            Wait(_block.Completion, limit > MissedCompletionGrace ? limit - MissedCompletionGrace : TimeSpan.Zero, "The ActionBlock");
        }
    }

    internal sealed class PipeContender<T>(LoopShape shape, PipeKind kind, Action<T> handler, Tally tally, PipeOptions? options = null) : ShapeContender(shape, tally)
    {
        private readonly IPipe<T> _pipe = Pipe.Create(kind, handler, options);

        public override void PostRange(long first, long end)
        {
            var pipe = _pipe;
            for (var m = first; m < end; m++)
            {
                pipe.Post(MessageAt<T>(m));
            }
        }

        public override void CompleteAndWait(TimeSpan limit)
        {
            _pipe.Complete();
            Wait(_pipe.Completion, limit, $"The {kind} pipe");
        }
    }

    internal sealed class ObservableContender<T> : ShapeContender
    {
        private readonly Subject<T> _subject = new();
        private readonly TaskCompletionSource _completed = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly IDisposable _subscription;

        public ObservableContender(LoopShape shape, Func<IObservable<T>, IObservable<T>> observeOn, Action<T> handler, Tally tally)
            : base(shape, tally)
            => _subscription = observeOn(_subject).Subscribe(handler, e => _completed.TrySetException(e), () => _completed.TrySetResult());

        public override void PostRange(long first, long end)
        {
            var subject = _subject;
            for (var m = first; m < end; m++)
            {
                subject.OnNext(MessageAt<T>(m));
            }
        }

        public override void CompleteAndWait(TimeSpan limit)
        {
            _subject.OnCompleted();
            Wait(_completed.Task, limit, "The observer's OnCompleted");
            _subscription.Dispose();
        }

        protected override void DisposeCore() => _subscription.Dispose();
    }

    internal sealed class RawRingContender<T>(LoopShape shape, Action<T> handler, Tally tally) : ShapeContender(shape, tally)
    {
        private readonly RawRing<T, Delegating<T>> _ring = new(new Delegating<T>(handler));

        public override void PostRange(long first, long end)
        {
            var ring = _ring;
            for (var m = first; m < end; m++)
            {
                ring.Post(MessageAt<T>(m));
            }

            ring.Flush();
        }

        public override void CompleteAndWait(TimeSpan limit) => _ring.Stop(limit);

        protected override void DisposeCore()
        {
            if (_ring.IsRunning)
            {
                _ring.Stop(TimeSpan.FromMinutes(1));
            }
        }
    }

    /// <summary>The shape's handler, a delegate as every other path here is given.</summary>
    private readonly struct Delegating<T>(Action<T> handler) : IRawRingHandler<T>
    {
        public void Handle(T message) => handler(message);
    }
}

/// <summary>An ActionBlock that handled every message missed its completion: Dataflow's bug, not a slow path (docs/runtime-bugs.md).</summary>
internal sealed class MissedCompletionException(string message) : TimeoutException(message);

/// <summary>The reference messages, made on first use (only reference shapes touch them).</summary>
internal static class SmallMessages
{
    public static readonly SmallMessage[] Block = [.. Enumerable.Range(0, ShapeContender.Block).Select(i => new SmallMessage(i))];
}
