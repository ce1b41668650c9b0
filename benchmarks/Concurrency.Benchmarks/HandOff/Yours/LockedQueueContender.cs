using Concurrency.Benchmarks.HandOff.Paths;

namespace Concurrency.Benchmarks.HandOff.Yours;

/// <summary>
/// A sample of adding your own queue to the hand-off game in one file, with no edit anywhere else: a class implementing
/// <see cref="IContenderSource{HandOffBuild}"/> is found by the registry, so its contender joins the headline benchmarks
/// (<c>--filter '*Headline*'</c>), the plain loop and the report, verified like every other. Here the queue is the one
/// many programs start with: a <see cref="Queue{T}"/> under a lock, and a consumer thread that waits on the lock's monitor.
/// Copy this file, rename the contender, and put your queue in place of <see cref="LockedQueue"/>.
/// </summary>
internal sealed class LockedQueueContender : IContenderSource<HandOffBuild>
{
    public IEnumerable<Contender<HandOffBuild>> Contenders =>
    [
        new("SampleLockedQueue", ContenderFamily.User, new HandOffBuild(() => new LockedQueuePath())) { Note = "a Queue<T> under a lock, a consumer thread waiting on its monitor" },
    ];

    /// <summary>The path the benchmarks drive: one producer posts each block; the consumer hands each message to the suite's counting consumer.</summary>
    private sealed class LockedQueuePath : IMessagePath
    {
        private readonly LockedQueue _queue = new();
        private readonly Thread _consumer;

        public LockedQueuePath()
        {
            Consumers = new ConsumerGroup(1, 1, sharesWork: false);
            _consumer = new Thread(Consume) { IsBackground = true, Name = "SampleLockedQueue consumer" };
            _consumer.Start();
        }

        public ConsumerGroup Consumers { get; }

        public void Post(Message[] messages)
        {
            foreach (var message in messages)
            {
                _queue.Enqueue(message);
            }
        }

        public void Complete()
        {
            _queue.Complete();
            if (!_consumer.Join(RunLimit.Timeout))
            {
                throw RunLimit.Stuck("The sample locked queue's consumer");
            }
        }

        public void Dispose()
        {
            _queue.Complete();
            Consumers.Dispose();
        }

        private void Consume()
        {
            try
            {
                var handle = Consumers.Members[0];
                while (_queue.TryDequeue(out var message))
                {
                    handle.Handle(message);
                }
            }
            catch (Exception ex)
            {
                Consumers.Signal.Fail(ex); // the runner's wait ends with this failure instead of timing out
            }
        }
    }

    /// <summary>Your queue goes here: a FIFO that one thread fills and one thread drains, and that can be completed.</summary>
    private sealed class LockedQueue
    {
        private readonly Queue<Message> _items = new(); // guarded by itself (the lock)
        private bool _completed;                         // guarded by _items

        public void Enqueue(Message message)
        {
            lock (_items)
            {
                ObjectDisposedException.ThrowIf(_completed, this);
                _items.Enqueue(message);
                if (_items.Count == 1)
                {
                    Monitor.Pulse(_items); // the consumer waits only when the queue is empty
                }
            }
        }

        public void Complete()
        {
            lock (_items)
            {
                _completed = true;
                Monitor.PulseAll(_items);
            }
        }

        /// <summary>Waits for the next message; false once the queue is completed and empty.</summary>
        public bool TryDequeue(out Message message)
        {
            lock (_items)
            {
                while (_items.Count == 0)
                {
                    if (_completed)
                    {
                        message = default!;
                        return false;
                    }

                    Monitor.Wait(_items);
                }

                message = _items.Dequeue();
                return true;
            }
        }
    }
}
