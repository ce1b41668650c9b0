namespace Concurrency.Messaging.Tests.Logs;

public sealed class AsyncOverMemoryAppendLogTests : AppendLogContractTests
{
    protected override bool Persists => false;

    protected override IAppendLog Open() => AppendLog.Async(AppendLog.InMemory());
}
