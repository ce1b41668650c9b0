namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>The sequential model: an unbounded FIFO that refuses posts once completed, completing only once.</summary>
internal sealed class FifoModel
{
    private bool _completed;

    public List<int> Accepted { get; } = [];

    public List<string> Results { get; } = [];

    public void TryPost(int value)
    {
        if (!_completed)
        {
            Accepted.Add(value);
        }

        Results.Add($"TryPost({value})={!_completed}");
    }

    public void TryComplete()
    {
        Results.Add($"TryComplete={!_completed}");
        _completed = true;
    }

    public override string ToString() => $"accepted [{string.Join(",", Accepted)}] results [{string.Join(" ", Results)}]";
}
