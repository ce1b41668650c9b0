
namespace Concurrency.Benchmarks.Logs;

/// <summary>One log opened for one measured run of the logs experiment; disposed (and its files removed) after it.</summary>
public interface ILogRun : IDisposable
{
    /// <summary>
    /// Appends <paramref name="entry"/>; called by many threads at once. Returns a task only where the append completes
    /// later (the async log): each thread waits for its last one before it stops its clock.
    /// </summary>
    Task? Append(ReadOnlySpan<byte> entry);

    /// <summary>After every append: the number of entries the log holds and every <paramref name="every"/>-th entry, in log order.</summary>
    LogReadBack ReadBack(int every);
}
