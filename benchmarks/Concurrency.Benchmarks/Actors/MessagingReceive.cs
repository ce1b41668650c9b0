
namespace Concurrency.Benchmarks.Actors;

/// <summary>How our actors' handlers are written in a game: the same moves behind each.</summary>
internal enum MessagingReceive
{
    /// <summary><c>Actor&lt;T&gt;.Receive</c>: a synchronous handler.</summary>
    Sync,

    /// <summary><c>AsyncActor&lt;T&gt;.ReceiveAsync</c>, an <c>async</c> method that never awaits: what the async path costs when it completes at once.</summary>
    Async,

    /// <summary><c>AsyncActor&lt;T&gt;.ReceiveAsync</c> awaiting <see cref="Task.Yield"/> before each move: the turn ends and resumes once per message.</summary>
    AsyncYielding,
}
