namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// The log's real file with a test's hand on it: counts the writes and fsyncs the log makes, can hold the first fsync until
/// the test lets it go, and can fail writes (after writing some of their bytes: a short write), fsyncs or cuts as a broken
/// or full disk does. Failures, once set, stay: a disk that failed stays failed.
/// </summary>
internal sealed class TestLogStorage(ILogStorage inner) : ILogStorage
{
    public const int NoSpaceLeft = 28; // ENOSPC

    private readonly ManualResetEventSlim _flushEntered = new();
    private int _writes;
    private int _flushes;
    private int _folderFlushes;
    private long _bytesRead;

    // Set by the test thread before the call it fails; read by the log's threads.
    private volatile Exception? _writeFailure;
    private long _writeBudget; // bytes that may still be written once _writeFailure is set; guarded by the log's append lock
    private volatile Exception? _flushFailure;
    private volatile Exception? _cutFailure;
    private volatile ManualResetEventSlim? _holdFlush;

    /// <summary>Gets or sets what runs on the writing thread just before a write fails (set before the failure).</summary>
    public Action? BeforeFailingWrite { get; set; }

    /// <summary>Gets or sets what runs on the writing thread before every write, under the log's append lock.</summary>
    public Action? BeforeEachWrite { get; set; }

    /// <summary>Gets or sets whether an fsync reaches the disk; <see langword="false"/> counts it without the wait.</summary>
    public bool RealFlush { get; set; } = true;

    public int Writes => Volatile.Read(ref _writes);

    public int Flushes => Volatile.Read(ref _flushes);

    public int FolderFlushes => Volatile.Read(ref _folderFlushes);

    public long BytesRead => Interlocked.Read(ref _bytesRead);

    public long Length => inner.Length;

    public static IOException DiskFull() => new("No space left on device", NoSpaceLeft);

    /// <summary>Opens a file log (4,096-byte buffer) on <paramref name="path"/> with this storage under it.</summary>
    public static FileLog OpenLog(string path, FileFlushPolicy policy, bool realFlush, out TestLogStorage storage)
    {
        TestLogStorage? opened = null;
        var log = FileLog.Open(
            path,
            new FileLogOptions { FlushPolicy = policy, BufferSize = 4096 },
            file => opened = new TestLogStorage(FileLogStorage.Open(file)) { RealFlush = realFlush });
        storage = opened!;
        return log;
    }

    /// <summary>
    /// Later writes succeed for <paramref name="bytesFirst"/> bytes in all; the write that goes past them writes the bytes
    /// left (a short write) and throws <paramref name="error"/>, as does every write after it.
    /// </summary>
    public void FailWrites(Exception error, int bytesFirst = 0)
    {
        Volatile.Write(ref _writeBudget, bytesFirst);
        _writeFailure = error;
    }

    public void FailFlushes(Exception error) => _flushFailure = error;

    public void FailCuts(Exception error) => _cutFailure = error;

    /// <summary>The next fsync waits for <paramref name="gate"/>; <see cref="WaitForHeldFlush"/> tells when it is waiting.</summary>
    public void HoldNextFlush(ManualResetEventSlim gate) => _holdFlush = gate;

    public void WaitForHeldFlush() => Xunit.Assert.True(_flushEntered.Wait(TestTimeouts.Default), "the held fsync never began");

    public int Read(Span<byte> destination, long offset)
    {
        var read = inner.Read(destination, offset);
        Interlocked.Add(ref _bytesRead, read);
        return read;
    }

    public void Write(ReadOnlySpan<byte> source, long offset)
    {
        Interlocked.Increment(ref _writes);
        BeforeEachWrite?.Invoke();
        if (_writeFailure is { } failure)
        {
            var first = (int)Math.Min(_writeBudget, source.Length);
            _writeBudget -= first;
            if (first < source.Length)
            {
                BeforeFailingWrite?.Invoke();
            }

            if (first > 0)
            {
                inner.Write(source[..first], offset);
            }

            if (first < source.Length)
            {
                throw failure;
            }

            return;
        }

        inner.Write(source, offset);
    }

    public void SetLength(long length)
    {
        if (_cutFailure is { } failure)
        {
            throw failure;
        }

        inner.SetLength(length);
    }

    public void Flush()
    {
        Interlocked.Increment(ref _flushes);
        if (Interlocked.Exchange(ref _holdFlush, null) is { } gate)
        {
            _flushEntered.Set();
            Xunit.Assert.True(gate.Wait(TestTimeouts.Default), "the test never let the held fsync go");
        }

        if (_flushFailure is { } failure)
        {
            throw failure;
        }

        if (RealFlush)
        {
            inner.Flush();
        }
    }

    public void FlushFolder()
    {
        Interlocked.Increment(ref _folderFlushes);
        inner.FlushFolder();
    }

    public void Dispose()
    {
        inner.Dispose();
        _flushEntered.Dispose();
    }
}
