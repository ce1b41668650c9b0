
namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>How the Proto.Remote client sends.</summary>
internal enum ProtoRemoteSendMode
{
    /// <summary>N concurrent senders, each awaiting <c>RequestAsync</c>'s reply before its next: the shape of our pump's callers.</summary>
    Request,

    /// <summary>One client actor with N requests in flight, each reply told back to it: Proto.Remote's batched best case.</summary>
    Tell,
}
