namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>
/// The seed's I/O-bound workload: search N documents for a topic, each read costing 1 ms of simulated latency. Blocking
/// (<see cref="Awaited"/> false): the read blocks its thread (<see cref="Thread.Sleep(int)"/>, standing in for a
/// synchronous read). Awaited (true): the read is an awaited <see cref="Task.Delay(int)"/>, and the concurrent version is
/// the seed's shape in async code: a few loops that each take the next document and await its read.
/// </summary>
internal sealed class DocumentSearch : IWorkload
{
    private const string Topic = "test";
    private const int LatencyMilliseconds = 1;

    private readonly string[] _documents;
    private readonly int _expected;

    public DocumentSearch(int count, bool awaited)
    {
        Awaited = awaited;
        _documents = [.. Enumerable.Range(0, count).Select(i => i % 3 == 0
            ? $"<item><title>report {i}</title><description>a {Topic} of the pump</description></item>"
            : $"<item><title>report {i}</title><description>nothing to see</description></item>")];
        _expected = (count + 2) / 3;
    }

    public bool Awaited { get; }

    /// <summary>Gets the number of documents searched.</summary>
    public int Documents => _documents.Length;

    public string Name => Awaited
        ? $"I/O-bound: search {_documents.Length:N0} documents, 1 ms awaited read (Task.Delay)"
        : $"I/O-bound: search {_documents.Length:N0} documents, 1 ms blocking read (Thread.Sleep)";

    public string Seed => "1 core: 87–88% less time; 8 cores: 87–88% less time";

    public void RunSequential()
    {
        if (Awaited)
        {
            SequentialAsync().GetAwaiter().GetResult();
            return;
        }

        var found = 0;
        for (var i = 0; i < _documents.Length; i++)
        {
            found += Matches(ReadBlocking(i));
        }

        Check(found);
    }

    /// <summary>Blocking reads split over workers; for the awaited read, see <see cref="RunAwaitedLoops"/>.</summary>
    public void RunSplit(ILabWorkers workers, int parts)
    {
        if (Awaited)
        {
            throw new InvalidOperationException("An awaited read runs on async loops, not on blocking workers.");
        }

        var found = new int[parts];
        var stride = _documents.Length / parts;
        workers.RunAll([.. Enumerable.Range(0, parts).Select<int, Action>(p => () =>
        {
            var end = p == parts - 1 ? _documents.Length : (p + 1) * stride;
            for (var i = p * stride; i < end; i++)
            {
                found[p] += Matches(ReadBlocking(i));
            }
        })]);
        Check(found.Sum());
    }

    /// <summary>Awaited reads: <paramref name="loops"/> async loops each take the next document (a shared index) and await its read.</summary>
    public void RunAwaitedLoops(int loops)
    {
        var next = -1;
        var found = 0;
        async Task Loop()
        {
            var local = 0;
            for (var i = Interlocked.Increment(ref next); i < _documents.Length; i = Interlocked.Increment(ref next))
            {
                local += Matches(await ReadAsync(i).ConfigureAwait(false));
            }

            Interlocked.Add(ref found, local);
        }

        WorkloadBounds.WaitAll(Task.WhenAll(Enumerable.Range(0, loops).Select(_ => Task.Run(Loop))), Name);

        Check(found);
    }

    private static int Matches(string document) => document.Contains(Topic, StringComparison.Ordinal) ? 1 : 0;

    private async Task SequentialAsync()
    {
        var found = 0;
        for (var i = 0; i < _documents.Length; i++)
        {
            found += Matches(await ReadAsync(i).ConfigureAwait(false));
        }

        Check(found);
    }

    private string ReadBlocking(int index)
    {
        Thread.Sleep(LatencyMilliseconds);
        return _documents[index];
    }

    private async Task<string> ReadAsync(int index)
    {
        await Task.Delay(LatencyMilliseconds).ConfigureAwait(false);
        return _documents[index];
    }

    private void Check(int found)
    {
        if (found != _expected)
        {
            throw new LabVerificationException($"{Name}: found {found} documents, expected {_expected}.");
        }
    }
}
