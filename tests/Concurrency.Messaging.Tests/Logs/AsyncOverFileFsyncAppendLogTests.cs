namespace Concurrency.Messaging.Tests.Logs;

/// <summary>The wrapper over a file log that fsyncs: each batch of queued appends shares one fsync.</summary>
public sealed class AsyncOverFileFsyncAppendLogTests : AppendLogContractTests
{
    protected override int AppendsPerThread => 500;

    protected override IAppendLog Open()
        => AppendLog.Async(AppendLog.OpenFile(Path.Combine(Place, "entries.log"), new FileLogOptions { FlushPolicy = FileFlushPolicy.Fsync }));
}
