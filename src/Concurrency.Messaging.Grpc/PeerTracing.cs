using System.Diagnostics;
using Concurrency.Messaging.Grpc.Protocol;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The peers' spans, named and tagged as RPC spans (docs/metrics.md names the semantic conventions' version): one per
/// send on the client (kind Client, from the call to its outcome) and one per handled request on the server (kind
/// Server, around the handler), both named <see cref="PeerMeter.RpcMethod"/>, the server's a child of the client's, whose
/// W3C trace context rides in the envelope (<c>trace_parent</c>, <c>trace_state</c> in peer.proto). A span ends with its
/// outcome whatever it is: a failure or a cancellation ends it with an error status and <c>error.type</c>. Off unless a
/// listener asks: every entry point checks <see cref="ActivitySource.HasListeners"/> first, and without a listener nothing
/// is made, parsed or written.
/// </summary>
internal static class PeerTracing
{
    /// <summary>The source's name: the library's, as the meter's.</summary>
    public const string Name = "Concurrency.Messaging";

    /// <summary>The spans' name, client's and server's: the RPC's <c>{package.service}/{method}</c>, as the conventions ask.</summary>
    public const string SpanName = PeerMeter.RpcMethod;

    public static ActivitySource Source { get; } = new(Name, typeof(PeerTracing).Assembly.GetName().Version?.ToString());

    /// <summary>
    /// Starts a send's span as a child of the caller's current activity, or returns null when nobody listens. The caller's
    /// current activity is left as it was: the span ends on another thread, when the send has its outcome.
    /// </summary>
    public static Activity? StartSend(PeerMessage message, Uri address)
    {
        if (!Source.HasListeners())
        {
            return null;
        }

        var caller = Activity.Current;
        var span = Source.StartActivity(SpanName, ActivityKind.Client);
        if (span is null)
        {
            return null;
        }

        Activity.Current = caller;
        if (span.IsAllDataRequested)
        {
            Rpc(span);
            span.SetTag("server.address", address.Host);
            span.SetTag("server.port", address.Port);
            span.SetTag("concurrency.peer.message.type", message.Type);
        }

        return span;
    }

    /// <summary>Ends a send's span with its outcome: a failure or a cancellation is an error, with its <c>error.type</c>.</summary>
    public static void EndSend(Activity span, Exception? error, bool cancelled)
    {
        if (PeerMeter.ErrorType(error, cancelled) is { } errorType)
        {
            span.SetStatus(ActivityStatusCode.Error, error?.Message ?? "The send was cancelled before its reply.");
            span.SetTag(PeerMeter.ErrorTypeTag, errorType);
        }

        span.Stop();
    }

    /// <summary>Starts the span of a request the server hands to its handler, or returns null when nobody listens.</summary>
    public static Activity? StartHandle(Envelope request)
    {
        if (!Source.HasListeners())
        {
            return null;
        }

        ActivityContext.TryParse(request.TraceParent, request.TraceState, isRemote: true, out var parent);
        var span = Source.StartActivity(SpanName, ActivityKind.Server, parent);
        if (span is { IsAllDataRequested: true })
        {
            Rpc(span);
            span.SetTag("concurrency.peer.message.type", request.Type);
            span.SetTag("concurrency.peer.sequence", (long)request.Sequence);
        }

        return span;
    }

    /// <summary>Ends a handled request's span, if any; a failed answer marks it as an error.</summary>
    public static void EndHandle(Activity? span, Envelope answer)
    {
        if (span is null)
        {
            return;
        }

        if (answer.Error.Length > 0)
        {
            span.SetStatus(ActivityStatusCode.Error, answer.Error);
            span.SetTag(PeerMeter.ErrorTypeTag, PeerMeter.Failed);
        }

        span.Stop();
    }

    /// <summary>Ends the span, if any, of a request whose handler was cancelled because its stream or the server stopped.</summary>
    public static void CancelHandle(Activity? span)
    {
        if (span is null)
        {
            return;
        }

        span.SetStatus(ActivityStatusCode.Error, "The request was cancelled: its stream or the server stopped.");
        span.SetTag(PeerMeter.ErrorTypeTag, PeerMeter.Cancelled);
        span.Stop();
    }

    private static void Rpc(Activity span)
    {
        span.SetTag(PeerMeter.RpcSystemTag, "grpc");
        span.SetTag(PeerMeter.RpcMethodTag, PeerMeter.RpcMethod);
    }
}
