namespace Concurrency.Messaging.Actors;

/// <summary>A handler that threw, reported on <see cref="ActorSystem.Failures"/> with what the supervisor decided.</summary>
/// <param name="Actor">The actor's name.</param>
/// <param name="Exception">What the handler threw.</param>
/// <param name="Directive">What the actor did next.</param>
public sealed record ActorFailure(string Actor, Exception Exception, SupervisionDirective Directive);
