using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A spin lock for critical sections of a few stores that never block: one compare-and-swap to enter, one release store
/// to leave, against about 7 ns for an uncontended <see cref="Lock"/> enter and exit measured here. A thread that finds it
/// held spins briefly, then yields, so a holder preempted on one core gets to run and leave.
/// </summary>
/// <remarks>Not reentrant, and nothing may wait inside it.</remarks>
internal struct SpinGate
{
    private int _held; // 1 while a thread is inside (Interlocked to enter, release store to leave)

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Enter()
    {
        if (Interlocked.CompareExchange(ref _held, 1, 0) != 0)
        {
            EnterContended();
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Exit() => Volatile.Write(ref _held, 0);

    // Fully optimised at its first call, which comes whenever two threads first meet here, often well into a run: a tier-0
    // method compiled then restarts the runtime's wait before it promotes the hot methods (the call-counting delay), so a
    // gate's first contention would postpone every other method's optimised code.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private void EnterContended()
    {
        var spinner = default(SpinWait);
        do
        {
            spinner.SpinOnce(sleep1Threshold: -1);
        }
        while (Volatile.Read(ref _held) != 0 || Interlocked.CompareExchange(ref _held, 1, 0) != 0);
    }
}
