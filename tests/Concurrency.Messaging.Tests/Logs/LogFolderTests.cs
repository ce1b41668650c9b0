namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// The base of the tests that keep logs on disk: a temporary folder of the test's own (xUnit makes a test class's instance
/// per test, so each test gets a fresh one), removed when the test is done.
/// </summary>
public abstract class LogFolderTests : IDisposable
{
    /// <summary>Gets this test's temporary folder; a durable log keeps its files here.</summary>
    protected string Place { get; } = Directory.CreateTempSubdirectory("concurrency-logs-").FullName;

    /// <summary>Gets the path of the test's log file in <see cref="Place"/>.</summary>
    protected string LogPath => Path.Combine(Place, "entries.log");

    /// <summary>Opens (or creates) the file log at <see cref="LogPath"/>, with a 4 KiB buffer.</summary>
    protected IFileAppendLog OpenFileLog() => AppendLog.OpenFile(LogPath, new FileLogOptions { BufferSize = 4096 });

    /// <summary>Appends <paramref name="count"/> entries to the file log and closes it: entry i is <paramref name="entry"/>(i), by default <see cref="LogEntries.Create"/>(0, i).</summary>
    protected void AppendAndClose(int count, Func<int, byte[]>? entry = null)
    {
        using var log = OpenFileLog();
        for (var i = 0; i < count; i++)
        {
            log.Append(entry?.Invoke(i) ?? LogEntries.Create(0, i));
        }
    }

    /// <summary>Reopens the file log: it holds exactly <paramref name="count"/> entries, entry i being <see cref="LogEntries.Create"/>(0, i).</summary>
    protected void AssertFileLogHolds(int count)
    {
        using var log = OpenFileLog();
        Assert.Equal(count, log.Count);
        for (var i = 0; i < count; i++)
        {
            Assert.Equal(LogEntries.Create(0, i), log.Get(i));
        }
    }

    public void Dispose()
    {
        Directory.Delete(Place, recursive: true);
        GC.SuppressFinalize(this);
    }
}
