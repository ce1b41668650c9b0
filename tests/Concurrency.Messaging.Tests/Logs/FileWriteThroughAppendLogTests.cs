namespace Concurrency.Messaging.Tests.Logs;

public sealed class FileWriteThroughAppendLogTests : AppendLogContractTests
{
    protected override IAppendLog Open()
        => AppendLog.OpenFile(Path.Combine(Place, "entries.log"), new FileLogOptions { FlushPolicy = FileFlushPolicy.WriteThrough, BufferSize = 4096 });
}
