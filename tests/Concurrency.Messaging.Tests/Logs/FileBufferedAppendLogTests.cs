namespace Concurrency.Messaging.Tests.Logs;

public sealed class FileBufferedAppendLogTests : AppendLogContractTests
{
    protected override IAppendLog Open()
        => AppendLog.OpenFile(Path.Combine(Place, "entries.log"), new FileLogOptions { FlushPolicy = FileFlushPolicy.Buffered, BufferSize = 4096 });
}
