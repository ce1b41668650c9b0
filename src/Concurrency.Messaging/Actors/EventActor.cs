namespace Concurrency.Messaging.Actors;

/// <summary>
/// The seed's actor: it listens on its mailbox and dispatches each event to the handler registered for the event's type,
/// one event at a time. It reads in runs (see <see cref="AggregatingActor{T, TKey}"/>): a type registered with
/// <see cref="OnRun"/> gets each run of consecutive events of that type in one call; one registered with <see cref="On"/>
/// gets them one by one.
/// </summary>
/// <typeparam name="TValue">The events' value type.</typeparam>
/// <remarks>An event of a type with no handler throws <see cref="InvalidOperationException"/> to the supervisor.</remarks>
public abstract class EventActor<TValue> : AggregatingActor<ActorEvent<TValue>, string>
{
    private readonly Dictionary<string, Action<ReadOnlySpan<ActorEvent<TValue>>>> _handlers = new(StringComparer.Ordinal);

    /// <summary>Creates the actor; register its handlers in the derived constructor.</summary>
    protected EventActor()
        : base(StringComparer.Ordinal)
    {
    }

    /// <summary>Handles each event of <paramref name="type"/> on its own.</summary>
    /// <exception cref="ArgumentException">A handler for <paramref name="type"/> is already registered.</exception>
    protected void On(string type, Action<ActorEvent<TValue>> handler)
    {
        ArgumentNullException.ThrowIfNull(type);
        ArgumentNullException.ThrowIfNull(handler);
        _handlers.Add(type, run =>
        {
            foreach (var e in run)
            {
                handler(e);
            }
        });
    }

    /// <summary>Handles each run of consecutive events of <paramref name="type"/> in one call.</summary>
    /// <exception cref="ArgumentException">A handler for <paramref name="type"/> is already registered.</exception>
    protected void OnRun(string type, Action<ReadOnlySpan<ActorEvent<TValue>>> handler)
    {
        ArgumentNullException.ThrowIfNull(type);
        ArgumentNullException.ThrowIfNull(handler);
        _handlers.Add(type, handler);
    }

    /// <inheritdoc/>
    protected sealed override string KeyOf(ActorEvent<TValue> message) => message.Type;

    /// <inheritdoc/>
    protected sealed override void ReceiveRun(string key, ReadOnlySpan<ActorEvent<TValue>> run)
    {
        if (!_handlers.TryGetValue(key, out var handler))
        {
            throw new InvalidOperationException($"The actor has no handler for events of type '{key}'.");
        }

        handler(run);
    }
}
