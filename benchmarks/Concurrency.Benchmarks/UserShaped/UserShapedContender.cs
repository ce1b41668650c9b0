using System.Reactive.Concurrency;
using System.Reactive.Linq;
using System.Reactive.Subjects;
using System.Threading.Tasks.Dataflow;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.UserShaped;

/// <summary>The paths a user would try, each built through its public API with default options.</summary>
public enum UserShapedPath
{
    DataflowActionBlock,
    Ring,
    BatchDrainQueue,
    ObserveOnRing,
    RxObserveOnTaskPool,
}

/// <summary>What the handler adds to: the consumer writes <see cref="Sum"/>; the producer reads it (Volatile) only to wait for a drain.</summary>
internal sealed class Tally
{
    public long Sum; // written by the consumer's handler only; read by the producer with Volatile.Read between rounds
}

/// <summary>
/// One path as a user's program holds it: a <c>for</c> loop of posts written against the path's own API (no layer of ours
/// between the loop and the post, so the loop costs what the user's costs), then the path's own complete and completion.
/// </summary>
internal abstract class UserShapedContender
{
    /// <summary>Builds <paramref name="path"/> with a handler that adds each message to <paramref name="tally"/>.</summary>
    public static UserShapedContender Create(UserShapedPath path, Tally tally) => path switch
    {
        UserShapedPath.DataflowActionBlock => new ActionBlockContender(tally),
        UserShapedPath.Ring => new PipeContender(PipeKind.Ring, tally),
        UserShapedPath.BatchDrainQueue => new PipeContender(PipeKind.BatchDrainQueue, tally),
        UserShapedPath.ObserveOnRing => new ObservableContender(source => source.ObserveOnRing(), tally),
        UserShapedPath.RxObserveOnTaskPool => new ObservableContender(source => source.ObserveOn(TaskPoolScheduler.Default), tally),
        _ => throw new ArgumentOutOfRangeException(nameof(path), path, "Unknown path."),
    };

    /// <summary>Posts <paramref name="first"/> up to (not including) <paramref name="end"/>, in order, from the calling thread.</summary>
    public abstract void PostRange(long first, long end);

    /// <summary>Completes the path and waits, at most <paramref name="limit"/>, until the consumer handled everything.</summary>
    public abstract void CompleteAndWait(TimeSpan limit);

    private static void Wait(Task completion, TimeSpan limit, string what)
    {
        if (!completion.Wait(limit))
        {
            throw new TimeoutException($"{what} did not complete within {limit.TotalSeconds:0} s.");
        }
    }

    private sealed class ActionBlockContender(Tally tally) : UserShapedContender
    {
        private readonly ActionBlock<long> _block = new(m => tally.Sum += m, new ExecutionDataflowBlockOptions { SingleProducerConstrained = true });

        public override void PostRange(long first, long end)
        {
            for (var m = first; m < end; m++)
            {
                if (!_block.Post(m))
                {
                    throw new InvalidOperationException("The ActionBlock refused a message.");
                }
            }
        }

        public override void CompleteAndWait(TimeSpan limit)
        {
            _block.Complete();
            Wait(_block.Completion, limit, "The ActionBlock");
        }
    }

    private sealed class PipeContender(PipeKind kind, Tally tally) : UserShapedContender
    {
        private readonly IPipe<long> _pipe = Pipe.Create<long>(kind, m => tally.Sum += m);

        public override void PostRange(long first, long end)
        {
            for (var m = first; m < end; m++)
            {
                _pipe.Post(m);
            }
        }

        public override void CompleteAndWait(TimeSpan limit)
        {
            _pipe.Complete();
            Wait(_pipe.Completion, limit, $"The {kind} pipe");
        }
    }

    private sealed class ObservableContender : UserShapedContender
    {
        private readonly Subject<long> _subject = new();
        private readonly TaskCompletionSource _completed = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly IDisposable _subscription;

        public ObservableContender(Func<IObservable<long>, IObservable<long>> observeOn, Tally tally)
            => _subscription = observeOn(_subject).Subscribe(m => tally.Sum += m, e => _completed.TrySetException(e), () => _completed.TrySetResult());

        public override void PostRange(long first, long end)
        {
            for (var m = first; m < end; m++)
            {
                _subject.OnNext(m);
            }
        }

        public override void CompleteAndWait(TimeSpan limit)
        {
            _subject.OnCompleted();
            Wait(_completed.Task, limit, "The observer's OnCompleted");
            _subscription.Dispose();
        }
    }
}
