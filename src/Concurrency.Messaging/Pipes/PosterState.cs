using System.Runtime.InteropServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// The in-flight flag of one thread that owns a <see cref="SingleProducerGate"/>, on a cache line of its own. Each owner gets
/// its own flag, so a thread that lost ownership and still runs its stale fast path can only ever raise and lower its own
/// flag, never the new owner's.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 128)]
internal sealed class PosterState(object? thread)
{
    /// <summary>The <see cref="PostingThread"/> token of the thread allowed on the fast path with this state; none for the state posts share under the lock.</summary>
    [FieldOffset(64)]
    public readonly object? Thread = thread;

    /// <summary>1 while a post is between its checks and its publish. Written by the owning thread (or the lock's holder).</summary>
    [FieldOffset(72)]
    public int InFlight;
}
