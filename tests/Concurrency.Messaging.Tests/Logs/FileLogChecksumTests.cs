namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// A caller that changes its buffer while its append runs (a bug in the caller, or a buffer reused too early) gets an entry
/// of some mix of its bytes, but never a record that fails its checksum: the log checksums the bytes it writes, not the
/// caller's memory, on the buffered path and on the path of entries larger than the buffer.
/// </summary>
public sealed class FileLogChecksumTests : LogFolderTests
{
    private const int BufferSize = 4096;

    [Theory]
    [InlineData(FileFlushPolicy.Buffered, 100)]
    [InlineData(FileFlushPolicy.WriteThrough, 100)]
    [InlineData(FileFlushPolicy.Fsync, 100)]
    [InlineData(FileFlushPolicy.WriteThrough, 3 * BufferSize)]
    public void Append_CallerChangesItsBufferAsTheAppendRuns_EveryRecordChecksOutOnReopen(FileFlushPolicy policy, int size)
    {
        var entry = new byte[size];
        using (var log = FileLog.Open(LogPath, new FileLogOptions { FlushPolicy = policy, BufferSize = BufferSize }))
        {
            log.Writer.OnStaging = () => entry[^1]++;
            log.Append(entry);
            log.Append(entry);
            log.AppendBatch([entry, entry]);
        }

        AssertEveryRecordChecksOut(4);
    }

    [Fact]
    public void Append_CallerChangesALargeEntryBetweenItsWrites_EveryRecordChecksOutOnReopen()
    {
        var entry = new byte[3 * BufferSize];
        var log = TestLogStorage.OpenLog(LogPath, FileFlushPolicy.WriteThrough, realFlush: false, out var storage);
        using (log)
        {
            storage.BeforeEachWrite = () => Array.Fill(entry, (byte)(entry[0] + 1));
            log.Append(entry);
            log.Append(entry);
        }

        AssertEveryRecordChecksOut(2);
    }

    private void AssertEveryRecordChecksOut(int count)
    {
        using var reopened = AppendLog.OpenFile(LogPath, new FileLogOptions { BufferSize = BufferSize });
        Assert.Null(reopened.TailCut);
        Assert.Equal(count, reopened.Count);
    }
}
