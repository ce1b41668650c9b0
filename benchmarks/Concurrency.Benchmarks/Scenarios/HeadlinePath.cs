namespace Concurrency.Benchmarks.Scenarios;

/// <summary>The headline's contenders, 1 producer → 1 consumer, ceilings first.</summary>
public enum HeadlinePath
{
    DirectCall,
    RawRing,
    RxObserveOnTaskPool,
    RxObserveOnThreadPool,
    RxObserveOnEventLoop,
    ObserveOnRing,
    ObserveOnLockedQueue,
    ObserveOnChannel,
    ReaderWriterLockQueue,
    BatchDrainQueue,
    Ring,
    ChannelUnbounded,
    ChannelBounded,
    BlockingCollection,
    DataflowActionBlock,
}
