using System.Runtime.InteropServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A count that one consumer writes (a plain add, once per batch or turn) and anyone reads, alone on its cache line: 64
/// bytes of padding before and after, so consumers counting side by side never invalidate each other's lines.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 136)]
internal struct PaddedCount
{
    [FieldOffset(64)]
    public long Value;
}
