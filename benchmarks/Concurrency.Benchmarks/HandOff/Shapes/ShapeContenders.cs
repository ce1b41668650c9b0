using System.Reactive.Concurrency;
using System.Reactive.Linq;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.HandOff.Shapes;

/// <summary>
/// How <c>loop --shapes</c> builds a contender in a shape: a fresh path over the shape's handler and tally, for messages
/// by value (<c>long</c>) and by reference (<see cref="SmallMessage"/>).
/// </summary>
internal sealed record ShapeBuild(
    Func<LoopShape, Action<long>, Tally, ShapeContender> Values,
    Func<LoopShape, Action<SmallMessage>, Tally, ShapeContender> References);

/// <summary>
/// The shapes' contenders, one per <see cref="ShapePath"/> and named as it is, each built through its public API with
/// default options: the pool runner's two are measured in the burst phase only (<see cref="LoopShapes.PathsOf"/>).
/// </summary>
internal static class ShapeContenders
{
    private static readonly PipeOptions PoolRunner = new() { Runner = PipeRunner.ThreadPool };

    public static ContenderRegistry<ShapeBuild> Registry { get; } = new("loop shapes",
    [
        new(nameof(ShapePath.DataflowActionBlock), ContenderFamily.Dataflow, new ShapeBuild(
            (shape, handler, tally) => new ShapeContender.ActionBlockContender<long>(shape, handler, tally),
            (shape, handler, tally) => new ShapeContender.ActionBlockContender<SmallMessage>(shape, handler, tally))),
        new(nameof(ShapePath.RxObserveOnTaskPool), ContenderFamily.Rx, new ShapeBuild(
            (shape, handler, tally) => new ShapeContender.ObservableContender<long>(shape, s => s.ObserveOn(TaskPoolScheduler.Default), handler, tally),
            (shape, handler, tally) => new ShapeContender.ObservableContender<SmallMessage>(shape, s => s.ObserveOn(TaskPoolScheduler.Default), handler, tally))),
        new(nameof(ShapePath.RawRing), ContenderFamily.Ceiling, new ShapeBuild(
            (shape, handler, tally) => new ShapeContender.RawRingContender<long>(shape, handler, tally),
            (shape, handler, tally) => new ShapeContender.RawRingContender<SmallMessage>(shape, handler, tally))),
        Pipe(ShapePath.Ring, PipeKind.Ring),
        Pipe(ShapePath.BatchDrainQueue, PipeKind.BatchDrainQueue),
        new(nameof(ShapePath.ObserveOnRing), ContenderFamily.Ours, new ShapeBuild(
            (shape, handler, tally) => new ShapeContender.ObservableContender<long>(shape, s => s.ObserveOnRing(), handler, tally),
            (shape, handler, tally) => new ShapeContender.ObservableContender<SmallMessage>(shape, s => s.ObserveOnRing(), handler, tally))),
        Pipe(ShapePath.RingPoolRunner, PipeKind.Ring, PoolRunner),
        Pipe(ShapePath.BatchDrainQueuePoolRunner, PipeKind.BatchDrainQueue, PoolRunner),
    ], discover: false);

    private static Contender<ShapeBuild> Pipe(ShapePath path, PipeKind kind, PipeOptions? options = null)
        => new(path.ToString(), ContenderFamily.Ours, new ShapeBuild(
            (shape, handler, tally) => new ShapeContender.PipeContender<long>(shape, kind, handler, tally, options),
            (shape, handler, tally) => new ShapeContender.PipeContender<SmallMessage>(shape, kind, handler, tally, options)));
}
