namespace Concurrency.Benchmarks.Backbone.Harness;

/// <summary>
/// N producer threads started once per case and parked on a barrier between blocks; <see cref="Run"/> releases them to
/// post their slice of a block and returns when all have posted. So thread start-up is never timed.
/// </summary>
public sealed class ProducerThreads : IDisposable
{
    private readonly Thread[] _threads;
    private readonly Barrier _barrier; // the runner plus every producer: one phase to start a block, one to end it
    private Message[] _messages = [];  // written by the runner before the start phase, read by producers after it
    private Action<Message>? _post;    // likewise
    private bool _stopping;            // likewise published by the barrier
    private Exception? _failure;       // the first producer's exception (Interlocked), read by the runner after the end phase

    public ProducerThreads(int count)
    {
        _barrier = new Barrier(count + 1);
        _threads = [.. Enumerable.Range(0, count).Select(i => new Thread(() => Produce(i)) { IsBackground = true, Name = $"producer {i}" })];
        foreach (var thread in _threads)
        {
            thread.Start();
        }
    }

    public int Count => _threads.Length;

    /// <summary>Producer i posts messages i, i + N, i + 2N, … in order; returns when every producer has posted its slice.</summary>
    public void Run(Message[] messages, Action<Message> post)
    {
        _messages = messages;
        _post = post;
        Phase("Starting the producers");
        Phase("The producers' posting");
        if (Interlocked.Exchange(ref _failure, null) is { } failure)
        {
            throw new InvalidOperationException("A producer's post threw.", failure);
        }
    }

    public void Dispose()
    {
        _stopping = true;
        Phase("Stopping the producers");
        foreach (var thread in _threads)
        {
            if (!thread.Join(RunLimit.Timeout))
            {
                throw RunLimit.Stuck($"{thread.Name}'s exit");
            }
        }

        _barrier.Dispose();
    }

    /// <summary>
    /// One producer's slice of a block. A method of its own, called once per block, so tiered compilation promotes it (with
    /// dynamic PGO, like the contenders' code) during BenchmarkDotNet's warm-up; the thread's own loop below is entered once
    /// and could only ever reach optimized code through on-stack replacement.
    /// </summary>
    private static void PostSlice(Message[] messages, Action<Message> post, int first, int stride)
    {
        for (var i = first; i < messages.Length; i += stride)
        {
            post(messages[i]);
        }
    }

    private void Phase(string what)
    {
        if (!_barrier.SignalAndWait(RunLimit.Timeout))
        {
            throw RunLimit.Stuck(what);
        }
    }

    private void Produce(int index)
    {
        while (true)
        {
            _barrier.SignalAndWait();
            if (_stopping)
            {
                return;
            }

            try
            {
                PostSlice(_messages, _post!, index, _threads.Length);
            }
            catch (Exception ex)
            {
                // Reported to the runner rather than left to crash the process, so the benchmark fails with the cause.
                Interlocked.CompareExchange(ref _failure, ex, null);
            }

            _barrier.SignalAndWait();
        }
    }
}
