using System.Diagnostics;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// The sequence numbers of one producer that one JetStream consumer has handled: everything up to
/// <see cref="Contiguous"/>, then a bitmap of a fixed number of sequence numbers above it. A high-water mark would not
/// do: a resent message can be stored after a later one, and a redelivered one comes back after later ones.
/// </summary>
/// <remarks>
/// <para>
/// Used by the consumer's loop only, one message at a time. Memory is fixed: <c>bits / 8</c> bytes, whatever arrives.
/// A message more than <c>bits</c> ahead of <see cref="Contiguous"/> slides the bitmap forward; whatever it slides past
/// and above <see cref="Contiguous"/>, handled or not, is then <see cref="SequenceVerdict.Unknown"/> if it arrives
/// later: the consumer hands it over (losing nothing) and counts it as a possible repeat.
/// </para>
/// <para>
/// With consumers that share the work, each sees only some of a producer's sequence numbers, so its contiguous prefix
/// stays where the first gap is and the bitmap slides: the window then guards against repeats within its last
/// <c>bits</c> sequence numbers only.
/// </para>
/// </remarks>
internal sealed class SequenceWindow
{
    private readonly ulong[] _words;
    private readonly long _bits;
    private long _base = 1;     // the bitmap covers [_base, _base + _bits)

    /// <param name="bits">How many sequence numbers above the contiguous prefix the window remembers: a power of two, at least 64.</param>
    public SequenceWindow(int bits)
    {
        Debug.Assert(bits >= 64 && (bits & (bits - 1)) == 0, "The window is whole 64-bit words, a power of two of them.");
        _bits = bits;
        _words = new ulong[bits / 64];
    }

    /// <summary>Gets the highest sequence number below which every one was handled.</summary>
    public long Contiguous { get; private set; }

    /// <summary>Gets the highest sequence number handled.</summary>
    public long Highest { get; private set; }

    /// <summary>Whether <paramref name="sequence"/> (1 or more) was handled, was not, or is too old to tell.</summary>
    public SequenceVerdict Check(long sequence)
    {
        if (sequence <= Contiguous)
        {
            return SequenceVerdict.Repeat;
        }

        if (sequence < _base)
        {
            return SequenceVerdict.Unknown;
        }

        return sequence < _base + _bits && IsSet(sequence) ? SequenceVerdict.Repeat : SequenceVerdict.New;
    }

    /// <summary>Records <paramref name="sequence"/> as handled.</summary>
    public void Mark(long sequence)
    {
        Highest = Math.Max(Highest, sequence);
        if (sequence <= Contiguous)
        {
            return;
        }

        if (sequence >= _base + _bits)
        {
            Slide(sequence - _bits + 1);
        }

        if (sequence >= _base)
        {
            Flip(sequence, on: true);
        }
        else if (sequence != Contiguous + 1)
        {
            return; // older than the window and not next: nothing to remember it by
        }

        // Advance the prefix over what is marked, clearing those bits as they leave the bitmap.
        while (true)
        {
            var next = Contiguous + 1;
            if (next == sequence && next < _base)
            {
                Contiguous = next; // the one just handled, below the window
                continue;
            }

            if (next < _base || next >= _base + _bits || !IsSet(next))
            {
                break;
            }

            Flip(next, on: false);
            Contiguous = next;
            _base = next + 1;
        }

        if (_base <= Contiguous)
        {
            _base = Contiguous + 1;
        }
    }

    private void Slide(long newBase)
    {
        var end = Math.Min(newBase, _base + _bits);
        for (var s = _base; s < end; s++)
        {
            Flip(s, on: false);
        }

        _base = newBase;
    }

    private bool IsSet(long sequence)
    {
        var index = sequence & (_bits - 1);
        return (_words[index >> 6] & (1UL << (int)(index & 63))) != 0;
    }

    private void Flip(long sequence, bool on)
    {
        var index = sequence & (_bits - 1);
        ref var word = ref _words[index >> 6];
        var bit = 1UL << (int)(index & 63);
        word = on ? word | bit : word & ~bit;
    }
}

/// <summary>What a <see cref="SequenceWindow"/> knows of a sequence number.</summary>
internal enum SequenceVerdict
{
    /// <summary>Not handled yet: hand it to the handler.</summary>
    New,

    /// <summary>Handled already: acknowledge it and do not hand it over again.</summary>
    Repeat,

    /// <summary>Older than the window and not in the contiguous prefix: hand it over, and count it as a possible repeat.</summary>
    Unknown,
}
