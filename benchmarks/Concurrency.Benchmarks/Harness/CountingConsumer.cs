using System.Runtime.InteropServices;

namespace Concurrency.Benchmarks.Harness;

/// <summary>
/// Counts and checksums what one consumer handled. The two hot fields sit alone on their cache lines: a producer that
/// shares a line with them would pay for every message the consumer counts (false sharing), and the benchmark would
/// measure the harness instead of the pipe.
/// </summary>
public sealed class CountingConsumer
{
    private Padded _state;

    public long Count => Volatile.Read(ref _state.Count);

    public long Checksum => Volatile.Read(ref _state.Checksum);

    /// <summary>Gets how many messages did not follow their predecessor's id (meaningful for one ordered producer).</summary>
    public long OutOfOrder => Volatile.Read(ref _state.OutOfOrder);

    /// <summary>Runs on the consumer's thread only.</summary>
    public void Handle(Message message)
    {
        _state.Count++;
        _state.Checksum += message.Id;
        if (message.Id != _state.Last + 1)
        {
            _state.OutOfOrder++;
        }

        _state.Last = message.Id;
    }

    [StructLayout(LayoutKind.Explicit, Size = 192)]
    private struct Padded
    {
        [FieldOffset(64)]
        public long Count;

        [FieldOffset(72)]
        public long Checksum;

        [FieldOffset(80)]
        public long Last;

        [FieldOffset(88)]
        public long OutOfOrder;
    }
}
