namespace Concurrency.Messaging.Actors;

/// <summary>
/// A message told or asked to an actor that had stopped, or discarded by an actor stopping without draining, reported on
/// <see cref="ActorSystem.DeadLetters"/>.
/// </summary>
/// <param name="Recipient">The stopped actor's name.</param>
/// <param name="Message">The message that was not delivered.</param>
public sealed record DeadLetter(string Recipient, object? Message);
