
namespace Concurrency.Benchmarks.Backbone.Idle;

/// <summary>
/// One idle consumer the idle and latency commands keep alive: how to hand it one more message (from one thread at a
/// time, as its single producer), and how to end it.
/// </summary>
public sealed class IdleInstance(Action post, Action dispose) : IDisposable
{
    /// <summary>Hands the consumer one more message; the handler it was built with is called when it is handled.</summary>
    public void Post() => post();

    public void Dispose() => dispose();
}
