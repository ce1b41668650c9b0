namespace Concurrency.Messaging.Actors;

/// <summary>The seed's event: what happened (its type), who says so (its source), and a value.</summary>
/// <typeparam name="TValue">The value's type.</typeparam>
/// <param name="Type">The event's type, which selects its handler.</param>
/// <param name="Source">Who sent it.</param>
/// <param name="Value">Its value.</param>
public readonly record struct ActorEvent<TValue>(string Type, string Source, TValue Value);
