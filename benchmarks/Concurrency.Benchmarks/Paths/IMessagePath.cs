using Concurrency.Benchmarks.Harness;

namespace Concurrency.Benchmarks.Paths;

/// <summary>
/// One way of moving messages from producers to consumers, built outside the measurement (threads started, pipe created,
/// subscription made) and used for exactly one measured <see cref="Run"/>.
/// </summary>
public interface IMessagePath : IDisposable
{
    /// <summary>Gets the consumers the path delivers to.</summary>
    IReadOnlyList<CountingConsumer> Consumers { get; }

    /// <summary>Gets whether consumers share the messages (each handled once) rather than each handling all of them.</summary>
    bool SharesWork { get; }

    /// <summary>Gets whether each consumer must see the messages in posting order (one producer, no sharing).</summary>
    bool Ordered => !SharesWork;

    /// <summary>The measured part: posts every message, completes, and returns once the last one was handled.</summary>
    void Run(Message[] messages);
}
