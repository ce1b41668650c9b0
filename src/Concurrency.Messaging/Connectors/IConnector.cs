namespace Concurrency.Messaging.Connectors;

/// <summary>
/// Wires two components that know nothing of each other: the producer side is handed only <see cref="Input"/>, the consumer
/// side only <see cref="Output"/>.
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
/// <remarks>
/// <para>Concurrent producers are safe: calls on <see cref="Input"/> are serialized, so subscribers never see overlapping
/// notifications. Each subscriber is called on the producer's thread (no thread hop); put an ObserveOn operator after
/// <see cref="Output"/> to move work elsewhere.</para>
/// <para>OnCompleted and OnError reach every subscriber, and a subscriber that arrives after termination gets the replayed
/// messages (see <see cref="ConnectorOptions.Replay"/>) and then the terminal notification. Calls on <see cref="Input"/>
/// after termination are ignored, as the Rx grammar requires.</para>
/// <para>A subscriber that throws (from OnNext, OnError or OnCompleted, live or while being replayed to) is unsubscribed and
/// receives nothing more; its exception goes to <see cref="ConnectorOptions.SubscriberFaulted"/> (or is dropped if there is
/// none), never to the producer or the subscribing caller, and the other subscribers still get that notification and keep
/// receiving.</para>
/// <para>Delivery holds a re-entrant lock: a subscriber that calls <see cref="Input"/> from its own OnNext re-enters delivery
/// on that thread (as with Rx's Subject), and one that blocks, blocks every producer.</para>
/// <para>Disposing the connector drops every subscription without a terminal notification and ignores further input;
/// subscribing afterwards throws <see cref="ObjectDisposedException"/>. Dispose does not wait for a delivery in progress
/// (a subscriber may call it, or wait for a thread that does, from inside OnNext): that delivery stops before its next
/// subscriber, and once Dispose has returned no notification starts.</para>
/// </remarks>
public interface IConnector<T> : IDisposable
{
    /// <summary>Gets the producer side.</summary>
    IObserver<T> Input { get; }

    /// <summary>Gets the consumer side.</summary>
    IObservable<T> Output { get; }

    /// <summary>Gets the number of current subscribers.</summary>
    int SubscriberCount { get; }
}
