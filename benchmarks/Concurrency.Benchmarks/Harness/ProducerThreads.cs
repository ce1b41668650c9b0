namespace Concurrency.Benchmarks.Harness;

/// <summary>
/// N producer threads started outside the measurement and parked on a barrier; <see cref="Run"/> releases them to post their
/// slice of the messages and returns when all have posted. So thread start-up is never timed.
/// </summary>
public sealed class ProducerThreads : IDisposable
{
    private readonly Thread[] _threads;
    private readonly Barrier _barrier; // the runner plus every producer: one phase to start a run, one to end it
    private Message[] _messages = [];  // written by the runner before the start phase, read by producers after it
    private Action<Message>? _post;
    private bool _stopping;            // likewise published by the barrier

    public ProducerThreads(int count)
    {
        _barrier = new Barrier(count + 1);
        _threads = Enumerable.Range(0, count).Select(i => new Thread(() => Produce(i)) { IsBackground = true, Name = $"producer {i}" }).ToArray();
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
        _barrier.SignalAndWait();
        _barrier.SignalAndWait();
    }

    public void Dispose()
    {
        _stopping = true;
        _barrier.SignalAndWait();
        foreach (var thread in _threads)
        {
            thread.Join();
        }

        _barrier.Dispose();
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

            var messages = _messages;
            var post = _post!;
            for (var i = index; i < messages.Length; i += _threads.Length)
            {
                post(messages[i]);
            }

            _barrier.SignalAndWait();
        }
    }
}
