namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// The contract under the Fsync policy, with fsyncs counted at the storage seam instead of waited for: what the policy asks
/// of the disk is checked in <see cref="FileLogFlushTests"/>, and real fsyncs in the crash tests of <see cref="FileLogRecoveryTests"/>,
/// so this suite's time does not depend on the disk CI has.
/// </summary>
public sealed class FileFsyncAppendLogTests : AppendLogContractTests
{
    protected override IAppendLog Open() => TestLogStorage.OpenLog(Path.Combine(Place, "entries.log"), FileFlushPolicy.Fsync, realFlush: false, out _);
}
