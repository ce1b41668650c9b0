using Concurrency.Messaging.Logs;

namespace Concurrency.Messaging.Tests.Logs;

public sealed class FileFsyncAppendLogTests : AppendLogContractTests
{
    // Each append waits for an fsync (shared between threads, still milliseconds on a slow disk).
    protected override int AppendsPerThread => 200;

    protected override IAppendLog Open()
        => AppendLog.OpenFile(Path.Combine(Place, "entries.log"), new FileLogOptions { FlushPolicy = FileFlushPolicy.Fsync, BufferSize = 4096 });
}
