namespace Concurrency.Messaging;

/// <summary>
/// One element of a queue's array, wrapped in a struct: the arrays of the pipes' queues, of the actors' mailboxes, and the
/// batch the turn runner hands over (<see cref="Internal.TurnBatch{T}"/>). It lives at the library's root because all of
/// them use it. Storing a reference into a <c>T[]</c> makes the runtime check
/// that the array really is an array of that type (arrays are covariant), a helper call on every post for shared generic
/// code; storing into a field of a struct element needs no such check.
/// </summary>
internal struct Slot<T>
{
    public T Value;
}
