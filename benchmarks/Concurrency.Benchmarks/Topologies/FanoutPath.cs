namespace Concurrency.Benchmarks.Topologies;

/// <summary>The contenders for a synchronous fan-out to N subscribers on the producer's thread.</summary>
public enum FanoutPath
{
    /// <summary>Our connector: serialized input, each subscriber isolated from the others' exceptions.</summary>
    Connector,

    /// <summary>Rx's plain Subject: no serialization, no isolation.</summary>
    RxSubject,

    /// <summary>Rx's Subject behind Subject.Synchronize: serialized input (a lock), no isolation.</summary>
    RxSubjectSynchronized,
}
