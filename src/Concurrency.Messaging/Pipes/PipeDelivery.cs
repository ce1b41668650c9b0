using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A pipe as the <see cref="TurnRunner"/>'s owner: a message goes to the consumer's handler; once the pipe is stopping
/// (a fault or an abort) messages are counted as unhandled instead; a handler's exception faults the pipe, counting the
/// message; the consumer's end counts as its exit (see <see cref="PipeBase{T}"/>). What was handled counts as consumer
/// <paramref name="consumer"/>'s.
/// </summary>
internal readonly struct PipeDelivery<T>(PipeBase<T> pipe, int consumer, Action<T> handler) : ITurnOwner<T>
{
    public bool LooksBeforeIdle => true;

    public bool IsStopping => pipe.IsStopping;

    public bool IsSuspended => false;

    public void Deliver(Slot<T>[] batch, ref int next, int end)
    {
        // Stopping is checked per message, so a fault or abort stops delivery mid-batch.
        while (next < end && !pipe.IsStopping)
        {
            handler(batch[next++].Value);
        }
    }

    public void DeliverOne(in T message) => handler(message);

    public void Handled(int count) => pipe.CountHandled(consumer, count);

    public void Unhandled(Slot<T>[] batch, int next, int end) => pipe.CountUnhandled(end - next);

    public void UnhandledOne(in T message) => pipe.CountUnhandled(1);

    public void Failed(Exception exception)
    {
        pipe.CountUnhandled(1);
        pipe.Fault(exception);
    }

    public void Suspended() => throw new InvalidOperationException("A pipe's handler never suspends its turn.");

    public void Completed() => pipe.ConsumerExited();

    public void QueueFailed(Exception exception)
    {
        pipe.FaultQueue(exception);
        pipe.ConsumerExited();
    }
}
