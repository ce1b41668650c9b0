namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// The scan after a bad record, which looks for valid records by their markers: linear in the file's length however many
/// marker bytes the entries hold, and it tells a bad last record whose entry holds records of its own (a log of logs)
/// from corruption with real records after it.
/// </summary>
public sealed class FileLogScanTests : LogFolderTests
{
    private const int FileHeaderSize = 16;
    private const int RecordHeaderSize = 12;
    private const int BufferSize = 4096;

    [Fact]
    public void Open_BadRecordFullOfMarkersClaimingLongRecords_ReadsTheFileAFewTimesAtMost()
    {
        // Every 16 bytes a marker whose length reaches the file's end: a scan that checksums each claim reads the
        // rest of the file once per marker.
        var entry = new byte[64 * 1024];
        for (var at = 0; at + RecordHeaderSize <= entry.Length; at += 16)
        {
            LogRecord.WriteHeader(entry.AsSpan(at), entry.Length - at - RecordHeaderSize, 0);
        }

        AppendAndClose(LogEntries.Create(0, 0), entry);
        var bytes = File.ReadAllBytes(LogPath);
        var bad = bytes.Length - entry.Length - RecordHeaderSize;
        bytes[bad + 8] ^= 0x01; // the big record's checksum
        File.WriteAllBytes(LogPath, bytes);

        TestLogStorage? counted = null;
        using (var log = FileLog.Open(LogPath, Options(), file => counted = new TestLogStorage(FileLogStorage.Open(file))))
        {
            Assert.Equal(1, log.Count);
            Assert.NotNull(log.TailCut);
        }

        var read = counted!.BytesRead;
        Assert.True(read < 8L * bytes.Length, $"the scan read {read} bytes of a {bytes.Length}-byte file");
    }

    [Theory]
    [InlineData(true)]  // torn: the file ends inside it
    [InlineData(false)] // whole, a bit flipped in its checksum
    public void Open_BadLastRecordHoldingRecordsOfItsOwn_IsABadTailNotCorruption(bool torn)
    {
        AppendAndClose(LogEntries.Create(0, 0), LogEntries.Create(0, 1), Nested(20));
        var bytes = File.ReadAllBytes(LogPath);
        var last = bytes.Length - Nested(20).Length - RecordHeaderSize;
        if (torn)
        {
            bytes = bytes[..^3];
        }
        else
        {
            bytes[last + 8] ^= 0x01;
        }

        File.WriteAllBytes(LogPath, bytes);

        using var log = AppendLog.OpenFile(LogPath, Options());

        Assert.Equal(2, log.Count);
        Assert.Equal(bytes.Length - last, log.TailCut!.BytesCut);
    }

    [Fact]
    public void Open_BadRecordHoldingRecordsOfItsOwnWithRecordsAfterIt_CountsOnlyTheRecordsAfter()
    {
        AppendAndClose(LogEntries.Create(0, 0), Nested(20), LogEntries.Create(0, 2), LogEntries.Create(0, 3));
        var bytes = File.ReadAllBytes(LogPath);
        var bad = FileHeaderSize + RecordHeaderSize + LogEntries.Create(0, 0).Length;
        bytes[bad + 8] ^= 0x01;
        File.WriteAllBytes(LogPath, bytes);

        var refused = Assert.Throws<LogCorruptedException>(() => AppendLog.OpenFile(LogPath, Options()));

        Assert.Equal(bad, refused.Offset);
        Assert.Equal(2, refused.RecordsAfter);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(8)]
    [InlineData(1_000)]
    [InlineData(70_001)]
    public void ChecksumZeros_AnyCount_MatchesChecksummingThatManyZeroBytes(int count)
    {
        const uint Start = 0x1234_5678;

        Assert.Equal(LogRecord.ChecksumUpdate(Start, new byte[count]), LogRecord.ChecksumZeros(Start, count));
    }

    // An entry that is a run of valid records, as a log that stores another log's bytes holds.
    private static byte[] Nested(int count)
    {
        var nested = new List<byte>();
        for (var i = 0; i < count; i++)
        {
            var entry = LogEntries.Create(1, i);
            var header = new byte[RecordHeaderSize];
            LogRecord.WriteHeader(header, entry.Length, LogRecord.Checksum(entry));
            nested.AddRange(header);
            nested.AddRange(entry);
        }

        return [.. nested];
    }

    private static FileLogOptions Options() => new() { BufferSize = BufferSize };

    private void AppendAndClose(params byte[][] entries)
    {
        using var log = AppendLog.OpenFile(LogPath, Options());
        foreach (var entry in entries)
        {
            log.Append(entry);
        }
    }
}
