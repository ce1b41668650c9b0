namespace Concurrency.Messaging.Tests.Logs;

public sealed class InMemoryAppendLogTests : AppendLogContractTests
{
    protected override bool Persists => false;

    protected override IAppendLog Open() => AppendLog.InMemory();
}
