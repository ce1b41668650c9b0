using System.Diagnostics;
using Concurrency.Messaging.Grpc.Protocol;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The peers' spans: one per send on the client (<see cref="SendName"/>, from the call to its outcome) and one per handled
/// request on the server (<see cref="HandleName"/>, around the handler), its parent the client's span, whose W3C trace
/// context rides in the envelope (<c>trace_parent</c>, <c>trace_state</c> in peer.proto). Off unless a listener asks:
/// every entry point checks <see cref="ActivitySource.HasListeners"/> first, and without a listener nothing is made,
/// parsed or written.
/// </summary>
internal static class PeerTracing
{
    /// <summary>The source's name: the library's, as the meter's.</summary>
    public const string Name = "Concurrency.Messaging";

    public const string SendName = "concurrency.peer.send";

    public const string HandleName = "concurrency.peer.handle";

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
        var span = Source.StartActivity(SendName, ActivityKind.Client);
        if (span is null)
        {
            return null;
        }

        Activity.Current = caller;
        if (span.IsAllDataRequested)
        {
            span.SetTag("concurrency.peer.message.type", message.Type);
            span.SetTag("server.address", address.Host);
            span.SetTag("server.port", address.Port);
        }

        return span;
    }

    /// <summary>Ends a send's span with its outcome.</summary>
    public static void EndSend(Activity span, Exception? error, bool cancelled)
    {
        if (error is not null)
        {
            span.SetStatus(ActivityStatusCode.Error, error.Message);
        }
        else if (cancelled)
        {
            span.SetStatus(ActivityStatusCode.Error, "cancelled");
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
        var span = Source.StartActivity(HandleName, ActivityKind.Server, parent);
        if (span is { IsAllDataRequested: true })
        {
            span.SetTag("concurrency.peer.message.type", request.Type);
            span.SetTag("concurrency.peer.sequence", (long)request.Sequence);
        }

        return span;
    }

    /// <summary>Ends a handled request's span; a failed answer marks it as an error.</summary>
    public static void EndHandle(Activity span, Envelope answer)
    {
        if (answer.Error.Length > 0)
        {
            span.SetStatus(ActivityStatusCode.Error, answer.Error);
        }

        span.Stop();
    }
}
