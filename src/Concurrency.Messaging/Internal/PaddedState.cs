using System.Runtime.InteropServices;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// An int alone on its cache line, for a flag one side reads on every message while the other side writes its own hot
/// fields next to it: 64 bytes of padding before and after keep those writes from invalidating the reader's line.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 132)]
internal struct PaddedState
{
    [FieldOffset(64)]
    public int Value;
}
