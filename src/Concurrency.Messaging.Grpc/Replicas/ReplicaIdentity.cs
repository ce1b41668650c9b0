namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The layout of an identity a <see cref="SequenceReplica"/> hands out: a counter in the high bits and the replica's id in
/// the low <see cref="ReplicaBits"/> bits, as Snowflake keeps a worker id, with no wall clock. Two replicas never hand out
/// the same identity because their ids differ; one replica never does because its counter only rises, and it hands out a
/// counter only from a block it has first reserved on disk.
/// </summary>
/// <remarks>
/// Limits: <see cref="MaxReplicas"/> replicas (ids 0 to 1,023); counters up to <see cref="MaxCounter"/> (2^53 − 1), shared
/// by the cluster because synchronization carries the largest counter to every replica, so the counter advances at about
/// the busiest replica's rate: at a million identities a second there (or in the whole cluster), 285 years. A crash skips the rest of the replica's reserved block, and an update or a
/// client's floor can raise the counter at once: each spends counters, never repeats one. Identities are positive
/// <see cref="long"/>s and order by counter first, so "larger" means "handed out after the counter passed".
/// </remarks>
public static class ReplicaIdentity
{
    /// <summary>The bits of an identity that hold the replica's id: 10.</summary>
    public const int ReplicaBits = 10;

    /// <summary>How many replicas a cluster can have: 1,024, with ids 0 to 1,023.</summary>
    public const int MaxReplicas = 1 << ReplicaBits;

    /// <summary>The largest counter: 2^53 − 1, so that every identity is a positive <see cref="long"/>.</summary>
    public const long MaxCounter = (1L << (63 - ReplicaBits)) - 1;

    /// <summary>Makes the identity of <paramref name="counter"/> on replica <paramref name="replica"/>.</summary>
    /// <param name="counter">The counter, 1 to <see cref="MaxCounter"/>.</param>
    /// <param name="replica">The replica's id, 0 to <see cref="MaxReplicas"/> − 1.</param>
    /// <returns>The identity.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A part is out of its range.</exception>
    public static long Compose(long counter, int replica)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(counter, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(counter, MaxCounter);
        ArgumentOutOfRangeException.ThrowIfNegative(replica);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(replica, MaxReplicas);
        return (counter << ReplicaBits) | (long)replica;
    }

    /// <summary>Gets the counter part of an identity (for a value that is not one, the counter it lies in).</summary>
    /// <param name="identity">An identity, or any value 0 or more.</param>
    /// <returns>The counter.</returns>
    public static long CounterOf(long identity) => identity >> ReplicaBits;

    /// <summary>Gets the id of the replica that handed out an identity.</summary>
    /// <param name="identity">An identity.</param>
    /// <returns>The replica's id.</returns>
    public static int ReplicaOf(long identity) => (int)(identity & (MaxReplicas - 1));
}
