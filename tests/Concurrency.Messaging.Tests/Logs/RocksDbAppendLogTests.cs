using Concurrency.Messaging.RocksDb;

namespace Concurrency.Messaging.Tests.Logs;

public sealed class RocksDbAppendLogTests : AppendLogContractTests
{
    protected override IAppendLog Open() => RocksDbAppendLog.Open(Path.Combine(Place, "store"));
}
