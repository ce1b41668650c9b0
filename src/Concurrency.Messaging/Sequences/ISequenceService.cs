namespace Concurrency.Messaging.Sequences;

/// <summary>
/// Hands out unique, increasing identities (the seed's Ipseity service). The service holds one value, the last: 0 at
/// first. <see cref="NextAsync"/> raises it by one and returns the new value, so the first identity is 1;
/// <see cref="UpdateAsync"/> raises it to a given value if that is larger, and never lowers it.
/// </summary>
/// <remarks>
/// Requests from any number of threads are applied one at a time, in one order, each at some instant between its call and
/// the completion of the task it returned. So:
/// <list type="bullet">
/// <item>No identity is handed out twice.</item>
/// <item>A <see cref="NextAsync"/> returns more than every identity returned by a <see cref="NextAsync"/> that completed
/// before it was called, and more than the value of every <see cref="UpdateAsync"/> that completed (was acknowledged)
/// before it was called. A client that awaits each call before the next sees its identities strictly increase.</item>
/// <item>A request cancelled after it was sent may still take effect: an identity may then be skipped, never repeated.</item>
/// </list>
/// Create one with <see cref="SequenceService.Create"/>.
/// </remarks>
public interface ISequenceService : IAsyncDisposable
{
    /// <summary>Raises the sequence by one and returns the new value: the next identity.</summary>
    /// <param name="cancellationToken">Cancels the wait for the service (it may have taken effect already; see the remarks on <see cref="ISequenceService"/>).</param>
    /// <returns>The identity, 1 or more. The <see cref="SequenceServiceKind.Simple"/> and <see cref="SequenceServiceKind.Sequence"/>
    /// kinds complete synchronously, without allocating; <see cref="SequenceServiceKind.Locker"/> does when its mutex is free.</returns>
    /// <exception cref="InvalidOperationException">The sequence is at <see cref="long.MaxValue"/>: no identity is left (the task faults).</exception>
    /// <exception cref="ObjectDisposedException">The service was disposed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled first.</exception>
    /// <exception cref="Actors.ActorStoppedException">The <see cref="SequenceServiceKind.Actor"/> kind only: its actor
    /// stopped (its system was shut down, or the service was disposed while the request was in flight).</exception>
    ValueTask<long> NextAsync(CancellationToken cancellationToken = default);

    /// <summary>
    /// Raises the sequence to <paramref name="value"/> if it is lower, so that every <see cref="NextAsync"/> called after
    /// this completes returns more than <paramref name="value"/>; a lower value changes nothing.
    /// </summary>
    /// <param name="value">The value the sequence must reach: 0 or more.</param>
    /// <param name="cancellationToken">Cancels the wait for the service (it may have taken effect already).</param>
    /// <returns>A task that completes once the update was applied (acknowledged): synchronously, without allocating, in
    /// the same cases as <see cref="NextAsync"/>.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative.</exception>
    /// <exception cref="ObjectDisposedException">The service was disposed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled first.</exception>
    /// <exception cref="Actors.ActorStoppedException">As for <see cref="NextAsync"/>.</exception>
    ValueTask UpdateAsync(long value, CancellationToken cancellationToken = default);
}
