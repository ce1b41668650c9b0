namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// The behaviour every <see cref="IAppendLog"/> promises (issue 10, seed 001): appends from many threads all present, each
/// once, in one total order that keeps each thread's own order; Get returns what was appended, the same bytes every time;
/// a durable log reopened after Close holds everything appended before it. Each implementation runs the whole suite
/// through a short subclass that says how to open it. Each test gets a fresh temporary folder (<see cref="LogFolderTests"/>).
/// </summary>
public abstract class AppendLogContractTests : LogFolderTests
{
    private const int Threads = 8;

    /// <summary>Gets whether the log keeps its entries across Close and a new <see cref="Open"/>.</summary>
    protected virtual bool Persists => true;

    /// <summary>Gets the appends per thread in the concurrent tests; fewer where each append waits for an fsync.</summary>
    protected virtual int AppendsPerThread => 2_000;

    /// <summary>Opens the log under test in <see cref="Place"/>: a new one, or the same one again after a Close.</summary>
    protected abstract IAppendLog Open();

    [Fact]
    public void Append_OneThread_IndexesDenseFromZeroAndGetReturnsEachEntry()
    {
        using var log = Open();

        for (var i = 0; i < 100; i++)
        {
            Assert.Equal(i, log.Append(LogEntries.Create(0, i)));
        }

        Assert.Equal(100, log.Count);
        for (var i = 0; i < 100; i++)
        {
            Assert.Equal(LogEntries.Create(0, i), log.Get(i));
        }
    }

    [Fact]
    public async Task Append_ManyThreads_EveryEntryOnceInOneTotalOrderKeepingEachThreadsOrder()
    {
        using var log = Open();

        var indexes = await AppendFromThreadsAsync(log, Threads, AppendsPerThread);

        var total = Threads * AppendsPerThread;
        Assert.Equal(total, log.Count);
        var seen = new bool[total];
        for (var writer = 0; writer < Threads; writer++)
        {
            for (var sequence = 0; sequence < AppendsPerThread; sequence++)
            {
                var index = indexes[writer][sequence];
                Assert.InRange(index, 0, total - 1);
                Assert.False(seen[index], $"index {index} was returned twice");
                seen[index] = true;
                Assert.True(sequence == 0 || index > indexes[writer][sequence - 1], $"writer {writer}'s order was not kept at {sequence}");
                Assert.Equal((writer, sequence), LogEntries.Read(log.Get(index)));
            }
        }
    }

    [Fact]
    public async Task AppendBatch_ManyThreads_EachBatchAtContiguousIndexesInOrder()
    {
        using var log = Open();
        const int batches = 50;
        const int batchSize = 5;

        var firsts = await RunThreadsAsync(4, writer =>
        {
            var result = new long[batches];
            for (var b = 0; b < batches; b++)
            {
                var batch = Enumerable.Range(b * batchSize, batchSize).Select(s => (ReadOnlyMemory<byte>)LogEntries.Create(writer, s)).ToArray();
                result[b] = log.AppendBatch(batch);
            }

            return result;
        });

        Assert.Equal(4 * batches * batchSize, log.Count);
        for (var writer = 0; writer < 4; writer++)
        {
            for (var b = 0; b < batches; b++)
            {
                for (var i = 0; i < batchSize; i++)
                {
                    Assert.Equal((writer, (b * batchSize) + i), LogEntries.Read(log.Get(firsts[writer][b] + i)));
                }
            }
        }
    }

    [Fact]
    public void AppendBatch_Empty_ReturnsCountAndAddsNothing()
    {
        using var log = Open();
        log.Append(LogEntries.Create(0, 0));

        Assert.Equal(1, log.AppendBatch([]));

        Assert.Equal(1, log.Count);
    }

    [Fact]
    public void Append_EmptyEntry_GetReturnsEmpty()
    {
        using var log = Open();

        var index = log.Append([]);

        Assert.Empty(log.Get(index));
    }

    [Fact]
    public void Append_LargeEntriesBetweenSmallOnes_GetReturnsEachWhole()
    {
        using var log = Open();
        byte[][] entries = [LogEntries.Create(0, 0), Filled(100_000, 1), LogEntries.Create(0, 1), Filled(1_100_000, 2), Filled(700_000, 3), LogEntries.Create(0, 2)];

        var indexes = entries.Select(e => log.Append(e)).ToArray();

        Assert.Equal(Enumerable.Range(0, entries.Length).Select(i => (long)i), indexes);
        for (var i = 0; i < entries.Length; i++)
        {
            Assert.Equal(entries[i], log.Get(i));
        }
    }

    [Fact]
    public void Get_SameIndexTwice_ReturnsEqualBytesThatTheCallerCannotChangeInTheLog()
    {
        using var log = Open();
        var index = log.Append(LogEntries.Create(3, 4));

        var first = log.Get(index);
        first[0] ^= 0xFF;
        var second = log.Get(index);

        Assert.Equal(LogEntries.Create(3, 4), second);
        Assert.Equal(LogEntries.Create(3, 4), log.Get(index));
    }

    [Fact]
    public void Get_IndexOutOfRange_ThrowsArgumentOutOfRange()
    {
        using var log = Open();
        log.Append(LogEntries.Create(0, 0));

        Assert.Throws<ArgumentOutOfRangeException>(() => log.Get(-1));
        Assert.Throws<ArgumentOutOfRangeException>(() => log.Get(1));
        Assert.Throws<ArgumentOutOfRangeException>(() => log.Get(long.MaxValue));
    }

    [Fact]
    public async Task Get_WhileOtherThreadsAppend_SeesOnlyCompleteEntries()
    {
        using var log = Open();
        using var appending = new CancellationTokenSource();
        var reads = 0;
        var reader = Task.Factory.StartNew(
            () =>
            {
                var random = new Random(7);
                while (!appending.IsCancellationRequested || reads == 0)
                {
                    var count = log.Count;
                    if (count > 0)
                    {
                        LogEntries.Read(log.Get(random.NextInt64(count)));
                        reads++;
                    }
                }
            },
            TestContext.Current.CancellationToken,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

        try
        {
            await AppendFromThreadsAsync(log, 4, AppendsPerThread);
        }
        finally
        {
            await appending.CancelAsync();
        }

        await reader.DefaultTimeout();
        Assert.True(reads > 0);
    }

    [Fact]
    public void Close_ThenAnyMember_ThrowsObjectDisposedAndCloseAgainDoesNothing()
    {
        var log = Open();
        log.Append(LogEntries.Create(0, 0));

        log.Close();
        log.Close();
        log.Dispose();

        Assert.Throws<ObjectDisposedException>(() => log.Append(LogEntries.Create(0, 1)));
        Assert.Throws<ObjectDisposedException>(() => log.AppendBatch([LogEntries.Create(0, 1)]));
        Assert.Throws<ObjectDisposedException>(() => log.Get(0));
        Assert.Throws<ObjectDisposedException>(() => log.Count);
        Assert.Throws<ObjectDisposedException>(log.Flush);
    }

    [Fact]
    public void AppendBatch_Null_ThrowsArgumentNull()
    {
        using var log = Open();

        Assert.Throws<ArgumentNullException>(() => log.AppendBatch(null!));
    }

    [Fact]
    public void Flush_AfterAppends_EntriesStayReadable()
    {
        using var log = Open();
        for (var i = 0; i < 10; i++)
        {
            log.Append(LogEntries.Create(0, i));
        }

        log.Flush();

        Assert.Equal(10, log.Count);
        Assert.Equal(LogEntries.Create(0, 9), log.Get(9));
    }

    [Fact]
    public async Task Open_AfterClose_HoldsEverythingAppendedBeforeAndAppendsAfterIt()
    {
        Assert.SkipUnless(Persists, "This log keeps nothing across a Close.");
        var log = Open();
        var indexes = await AppendFromThreadsAsync(log, 4, 250);
        var before = Enumerable.Range(0, (int)log.Count).Select(i => log.Get(i)).ToArray();
        log.Close();

        using var reopened = Open();

        Assert.Equal(before.Length, reopened.Count);
        for (var i = 0; i < before.Length; i++)
        {
            Assert.Equal(before[i], reopened.Get(i));
        }

        Assert.Equal((0, 0), LogEntries.Read(reopened.Get(indexes[0][0])));
        Assert.Equal(before.Length, reopened.Append(LogEntries.Create(9, 9)));
        Assert.Equal(LogEntries.Create(9, 9), reopened.Get(before.Length));
    }

    private static byte[] Filled(int length, int seed) => [.. Enumerable.Range(0, length).Select(i => (byte)(i * seed))];

    /// <summary>Appends <paramref name="perThread"/> entries from each of <paramref name="threads"/> threads; returns each append's index.</summary>
    private static Task<long[][]> AppendFromThreadsAsync(IAppendLog log, int threads, int perThread)
        => RunThreadsAsync(threads, writer =>
        {
            var indexes = new long[perThread];
            for (var sequence = 0; sequence < perThread; sequence++)
            {
                indexes[sequence] = log.Append(LogEntries.Create(writer, sequence));
            }

            return indexes;
        });

    /// <summary>Runs <paramref name="work"/> on <paramref name="threads"/> threads of their own, released together.</summary>
    private static async Task<T[]> RunThreadsAsync<T>(int threads, Func<int, T> work)
    {
        using var start = new Barrier(threads);
        var tasks = Enumerable.Range(0, threads).Select(writer => Task.Factory.StartNew(
            () =>
            {
                start.SignalAndWait(TestTimeouts.Default);
                return work(writer);
            },
            TestContext.Current.CancellationToken,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default)).ToArray();
        return await Task.WhenAll(tasks).DefaultTimeout();
    }
}
