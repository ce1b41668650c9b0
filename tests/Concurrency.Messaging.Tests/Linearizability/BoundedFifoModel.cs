namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// The sequential model of a pipe whose consumers are held: a FIFO that accepts a post while it is open and has room
/// (<paramref name="room"/> slots, or unbounded), refuses every post once completed, and completes only once. Nothing
/// leaves it while the consumers are held, so what it accepted is exactly what they must handle once released.
/// </summary>
internal sealed class BoundedFifoModel(int? room)
{
    private bool _completed;

    public List<int> Accepted { get; } = [];

    public List<string> Results { get; } = [];

    public void TryPost(int value)
    {
        var accepted = !_completed && (room is null || Accepted.Count < room);
        if (accepted)
        {
            Accepted.Add(value);
        }

        Results.Add(OperationResult.Post(value, accepted));
    }

    public void TryComplete()
    {
        Results.Add(OperationResult.Complete(!_completed));
        _completed = true;
    }

    public override string ToString() => $"accepted [{string.Join(",", Accepted)}] results [{string.Join(" ", Results)}]";
}

/// <summary>How an operation and its answer are written, identically by the actual pipe and by the model.</summary>
internal static class OperationResult
{
    public static string Post(int value, bool accepted) => $"TryPost({value})={(accepted ? "T" : "F")}";

    public static string Complete(bool completed) => $"TryComplete={(completed ? "T" : "F")}";
}
