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

    public void Dispose()
    {
        Directory.Delete(Place, recursive: true);
        GC.SuppressFinalize(this);
    }
}
