namespace Concurrency.Messaging.Logs;

/// <summary>
/// An <see cref="IAppendLog"/> kept in one file (<see cref="AppendLog.OpenFile(string, FileLogOptions?)"/>), which says
/// what opening it cut.
/// </summary>
public interface IFileAppendLog : IAppendLog
{
    /// <summary>
    /// Gets what opening cut from the file's end (a bad record with no valid record after it: the torn write a crash leaves,
    /// or a last record damaged since it was written) and the side file that keeps the cut bytes, byte for byte;
    /// <see langword="null"/> when opening cut nothing. Under <see cref="FileFlushPolicy.Fsync"/> a cut can hold an entry
    /// whose append returned: check this after every open, and look in <see cref="FileLogRepair.CutFile"/> before deleting it.
    /// </summary>
    FileLogRepair? TailCut { get; }
}
