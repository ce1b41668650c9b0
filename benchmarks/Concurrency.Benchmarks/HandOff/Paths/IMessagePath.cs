namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>
/// One way of moving messages from producers to consumers, built once per benchmark case (threads started, pipe created,
/// subscription made) and kept alive across every invocation: each <see cref="Post"/> moves one block, and
/// <see cref="Complete"/> ends the path's life once, in the global cleanup.
/// </summary>
public interface IMessagePath : IDisposable
{
    /// <summary>Gets the consumers the path delivers to, and the runner's wait and checks for each block.</summary>
    ConsumerGroup Consumers { get; }

    /// <summary>Gets how many producers post concurrently; message p, p + N, … belongs to producer p.</summary>
    int Producers => 1;

    /// <summary>The measured part: posts every message of a block; delivery may still be under way when it returns.</summary>
    void Post(Message[] messages);

    /// <summary>
    /// Completes the path (Complete, OnCompleted) and waits, bounded, for its final completion, rethrowing its failure.
    /// </summary>
    void Complete();
}
