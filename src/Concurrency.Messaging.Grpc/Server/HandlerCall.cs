using Concurrency.Messaging.Grpc.Protocol;
using Google.Protobuf;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// How the server turns one request envelope into its reply: the size limits on both (a request over the limit never
/// reaches the handler), the handler's call, and a failure's envelope. Called by <see cref="PeerStream"/> under its
/// session's gate, once per request handled (not for a resend answered from memory); it holds no state of its own.
/// </summary>
internal static class HandlerCall
{
    /// <summary>An upper bound of the envelope's bytes on the wire, without encoding its strings twice.</summary>
    public static int EnvelopeSize(Envelope envelope) => 32 + ((envelope.Type.Length + envelope.Source.Length + envelope.Error.Length) * 3) + envelope.Payload.Length;

    /// <summary>
    /// A request over the limit fails before its handler runs, so that a handler with side effects never runs for it: its
    /// failure's envelope, or null for a request within the limit.
    /// </summary>
    public static ValueTask<Envelope>? TooLarge(PeerServerState state, Envelope request)
    {
        // The upper bound first (no UTF-8 count per message on the usual path); the exact size only near the limit.
        if (EnvelopeSize(request) <= state.Options.MaxMessageBytes)
        {
            return null;
        }

        var size = new PeerMessage(request.Type, request.Source, request.Payload.Memory).WireSize;
        if (size <= state.Options.MaxMessageBytes)
        {
            return null;
        }

        state.CountFailed();
        var refused = Failed(request, $"The request takes {size:N0} bytes; the server's limit (PeerServerOptions.MaxMessageBytes) is {state.Options.MaxMessageBytes:N0}. It was not handled.");
        state.Refused("request_size", refused.Error, stream: false);
        return new ValueTask<Envelope>(refused);
    }

    /// <summary>Calls the handler; the usual answer is synchronous: a completed task, no state machine.</summary>
    public static ValueTask<Envelope> Invoke(PeerServerState state, Envelope request, CancellationToken stop)
    {
        ValueTask<PeerMessage> pending;
        try
        {
            pending = state.Options.Handler(new PeerMessage(request.Type, request.Source, request.Payload.Memory), stop);
        }
#pragma warning disable CA1031 // A handler that throws fails its own request only; the caller gets the error text.
        catch (Exception error)
#pragma warning restore CA1031
        {
            return new ValueTask<Envelope>(Failed(state, request, error));
        }

        return pending.IsCompletedSuccessfully
            ? new ValueTask<Envelope>(Answer(state, request, pending.Result))
            : AwaitAsync(state, request, pending, stop);
    }

    private static async ValueTask<Envelope> AwaitAsync(PeerServerState state, Envelope request, ValueTask<PeerMessage> pending, CancellationToken stop)
    {
        try
        {
            return Answer(state, request, await pending.ConfigureAwait(false));
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            throw;
        }
#pragma warning disable CA1031 // A handler that throws fails its own request only; the caller gets the error text.
        catch (Exception error)
#pragma warning restore CA1031
        {
            return Failed(state, request, error);
        }
    }

    private static Envelope Answer(PeerServerState state, Envelope request, PeerMessage answer)
    {
        // An upper bound first (at most 3 UTF-8 bytes a char, 5 a length, 1 a key), as for requests: the exact size, which
        // counts the UTF-8 of both strings, only near the limit.
        var bound = (((answer.Type?.Length ?? 0) + (answer.Source?.Length ?? 0)) * 3) + answer.Payload.Length + 18;
        var size = bound <= state.Options.MaxMessageBytes ? bound : answer.WireSize;
        if (size > state.Options.MaxMessageBytes)
        {
            state.CountFailed();
            var refused = Failed(request, $"The reply takes {size:N0} bytes; the server's limit (PeerServerOptions.MaxMessageBytes) is {state.Options.MaxMessageBytes:N0}.");
            state.Refused("reply_size", refused.Error, stream: false);
            return refused;
        }

        // The request becomes its own reply, which saves an envelope a message: nothing else holds it (the handler, done
        // now, saw its fields, not it), and it was read without unknown fields (PeerService), so every field a reply may
        // carry is set here. An answer that hands back the request's own bytes (an echo) keeps its byte string.
        request.Type = answer.Type ?? string.Empty;
        request.Source = answer.Source ?? string.Empty;
        if (!answer.Payload.Equals(request.Payload.Memory))
        {
            request.Payload = UnsafeByteOperations.UnsafeWrap(answer.Payload);
        }

        request.Error = string.Empty;
        request.Forgotten = false;
        request.TraceParent = string.Empty;
        request.TraceState = string.Empty;
        return request;
    }

    private static Envelope Failed(PeerServerState state, Envelope request, Exception error)
    {
        state.CountFailed();
        var type = request.Type.Length <= 100 ? request.Type : request.Type[..100] + "…";
        if (state.Options.EnableDetailedErrors)
        {
            return Failed(request, $"The server's handler failed on '{type}': {error.GetType().Name}: {error.Message}");
        }

        // The exception stays on this side: its message is the server's, not the client's to read.
        PeerServiceLog.HandlerFailed(state.Logger, type, error);
        return Failed(request, $"The server's handler failed on '{type}'.");
    }

    // A failure carries no type and quotes at most the start of the request's: its size stays small whatever was sent.
    private static Envelope Failed(Envelope request, string error) => new() { Sequence = request.Sequence, Error = error };
}
