using System.Globalization;
using Concurrency.Messaging.Logs;
using Xunit;

namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// What a file log holds after a crash: a torn or corrupt tail is cut on open and the complete records before it kept; a
/// process killed between append and flush loses at most what its policy says (the crash probe appends, then kills itself).
/// </summary>
public sealed class FileLogRecoveryTests : IDisposable
{
    // The crash probe's entries: 8 bytes of header plus 16 of entry; its buffer is 4096 bytes (see LogCrash in the probe).
    private const int ProbeRecordSize = 8 + 16;
    private const int ProbeBufferSize = 4096;
    private const int ProbeAppends = 1_000;

    private readonly string _place = Directory.CreateTempSubdirectory("concurrency-logs-").FullName;

    private string LogPath => Path.Combine(_place, "entries.log");

    public void Dispose() => Directory.Delete(_place, recursive: true);

    [Fact]
    public void OpenFile_TornTailRecord_TruncatesItAndKeepsTheCompleteRecords()
    {
        AppendAndClose(10);
        var complete = new FileInfo(LogPath).Length;
        using (var file = File.OpenWrite(LogPath))
        {
            file.SetLength(complete - 3);
        }

        using var log = OpenLog();

        Assert.Equal(9, log.Count);
        Assert.Equal(LogEntries.Create(0, 8), log.Get(8));
        Assert.Equal(9, log.Append(LogEntries.Create(1, 9)));
        log.Close();
        using var reopened = OpenLog();
        Assert.Equal(10, reopened.Count);
        Assert.Equal(LogEntries.Create(1, 9), reopened.Get(9));
    }

    [Fact]
    public void OpenFile_TornHeader_TruncatesToTheLastCompleteRecord()
    {
        AppendAndClose(3);
        var complete = new FileInfo(LogPath).Length;
        File.AppendAllBytes(LogPath, [5, 0, 0]);

        using var log = OpenLog();

        Assert.Equal(3, log.Count);
        Assert.Equal(complete, new FileInfo(LogPath).Length);
    }

    [Fact]
    public void OpenFile_CorruptByteInARecord_StopsBeforeThatRecord()
    {
        AppendAndClose(10);
        var bytes = File.ReadAllBytes(LogPath);
        bytes[^2] ^= 0x40;
        File.WriteAllBytes(LogPath, bytes);

        using var log = OpenLog();

        Assert.Equal(9, log.Count);
    }

    [Fact]
    public void OpenFile_ZeroFilledTail_IsNotTakenForEmptyEntries()
    {
        AppendAndClose(2);
        File.AppendAllBytes(LogPath, new byte[64]);

        using var log = OpenLog();

        Assert.Equal(2, log.Count);
    }

    [Fact]
    public void Append_EntryLargerThanTheBuffer_WrittenOnItsOwnAndReadBack()
    {
        var large = Enumerable.Range(0, 10_000).Select(i => (byte)i).ToArray();
        using (var log = OpenLog())
        {
            log.Append(LogEntries.Create(0, 0));
            Assert.Equal(1, log.Append(large));
            log.Append(LogEntries.Create(0, 2));
            Assert.Equal(large, log.Get(1));
        }

        using var reopened = OpenLog();
        Assert.Equal(3, reopened.Count);
        Assert.Equal(large, reopened.Get(1));
        Assert.Equal(LogEntries.Create(0, 2), reopened.Get(2));
    }

    [Fact]
    public void OpenFile_BadArguments_Throw()
    {
        Assert.Throws<ArgumentNullException>(() => AppendLog.OpenFile(null!));
        Assert.Throws<ArgumentException>(() => AppendLog.OpenFile(""));
        Assert.Throws<ArgumentOutOfRangeException>(() => AppendLog.OpenFile(LogPath, new FileLogOptions { BufferSize = 8 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => AppendLog.OpenFile(LogPath, new FileLogOptions { FlushPolicy = (FileFlushPolicy)42 }));
    }

    [Theory]
    [InlineData(FileFlushPolicy.WriteThrough)]
    [InlineData(FileFlushPolicy.Fsync)]
    public async Task Append_ProcessKilledBeforeClose_LosesNothingAppendReturned(FileFlushPolicy policy)
    {
        var kept = await RunProbeAndReopenAsync(policy);

        Assert.Equal(ProbeAppends, kept);
    }

    [Fact]
    public async Task Append_ProcessKilledBeforeCloseBuffered_LosesAtMostTheBufferAndKeepsAPrefix()
    {
        var kept = await RunProbeAndReopenAsync(FileFlushPolicy.Buffered);

        Assert.InRange(kept, ProbeAppends - (ProbeBufferSize / ProbeRecordSize), ProbeAppends);
    }

    /// <summary>Has the crash probe append and get killed, then reopens its file: returns the entries kept, each checked.</summary>
    private async Task<long> RunProbeAndReopenAsync(FileFlushPolicy policy)
    {
        var (exitCode, output, errors) = await CrashProbeProcess.RunAsync("log", LogPath, policy.ToString(), ProbeAppends.ToString(CultureInfo.InvariantCulture));
        Assert.Contains($"appended {ProbeAppends}", output, StringComparison.Ordinal);
        Assert.True(exitCode is not 0 and not 3, $"the probe was not killed (exit code {exitCode}): {errors}");

        using var log = OpenLog();
        for (var i = 0; i < log.Count; i++)
        {
            var entry = log.Get(i);
            Assert.Equal(i, BitConverter.ToInt64(entry));
            Assert.All(entry[8..], b => Assert.Equal(0xA5, b));
        }

        return log.Count;
    }

    private IAppendLog OpenLog() => AppendLog.OpenFile(LogPath, new FileLogOptions { BufferSize = 4096 });

    private void AppendAndClose(int count)
    {
        using var log = OpenLog();
        for (var i = 0; i < count; i++)
        {
            log.Append(LogEntries.Create(0, i));
        }
    }
}
