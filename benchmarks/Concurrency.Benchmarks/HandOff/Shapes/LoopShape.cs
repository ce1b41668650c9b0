using System.Globalization;

namespace Concurrency.Benchmarks.HandOff.Shapes;

/// <summary>What a message is: a <c>long</c> posted by value, or a small preallocated object posted by reference.</summary>
public enum ShapeMessage
{
    Value,
    Reference,
}

/// <summary>What the handler does: <c>sum += m</c>, or the suite's verification (count, checksum, order) as well.</summary>
public enum ShapeHandler
{
    Trivial,
    Verifying,
}

/// <summary>The paths every shape measures, each built through its public API with default options.</summary>
public enum ShapePath
{
    DataflowActionBlock,
    RxObserveOnTaskPool,
    RawRing,
    Ring,
    BatchDrainQueue,
    ObserveOnRing,

    /// <summary><see cref="Ring"/> with its consumer run as thread-pool turns: measured in the burst phase only.</summary>
    RingPoolRunner,

    /// <summary><see cref="BatchDrainQueue"/> with its consumer run as thread-pool turns: measured in the burst phase only.</summary>
    BatchDrainQueuePoolRunner,
}

/// <summary>One shape a user's program has: the message and the handler.</summary>
public readonly record struct LoopShape(ShapeMessage Message, ShapeHandler Handler)
{
    /// <summary>Every shape, value messages first.</summary>
    public static IReadOnlyList<LoopShape> All { get; } =
    [
        new(ShapeMessage.Value, ShapeHandler.Trivial),
        new(ShapeMessage.Value, ShapeHandler.Verifying),
        new(ShapeMessage.Reference, ShapeHandler.Trivial),
        new(ShapeMessage.Reference, ShapeHandler.Verifying),
    ];

    /// <summary>Gets the shape as the tables name it ("value, trivial").</summary>
    public string Name => string.Create(CultureInfo.InvariantCulture, $"{Message.ToString().ToLowerInvariant()}, {Handler.ToString().ToLowerInvariant()}");

    /// <summary>Gets the shape as a measurement's conditions ("Message=Value;Handler=Trivial").</summary>
    public string Conditions => string.Create(CultureInfo.InvariantCulture, $"Message={Message};Handler={Handler}");
}
