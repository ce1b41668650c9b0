namespace Concurrency.Benchmarks.Idle;

/// <summary>One idle consumer the idle command keeps alive, and how to end it.</summary>
public sealed class IdleInstance(Action dispose) : IDisposable
{
    public void Dispose() => dispose();
}
