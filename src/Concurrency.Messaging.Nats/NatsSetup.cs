using NATS.Client.Core;
using NATS.Client.JetStream;
using NATS.Client.JetStream.Models;

namespace Concurrency.Messaging.Nats;

/// <summary>What both sides do before the first message: reach the server within a bound, and for JetStream set up the stream.</summary>
internal static class NatsSetup
{
    /// <summary>
    /// Connects <paramref name="connection"/> (if it is not yet) within the options' server timeout, and for JetStream
    /// creates the stream or updates it to these options; returns the JetStream context (null for Core) and the stream's
    /// last sequence number now.
    /// </summary>
    internal static async Task<(NatsJSContext? JetStream, ulong LastSequence)> ConnectAsync(NatsConnection connection, NatsPipeOptions options, CancellationToken cancellationToken)
    {
        try
        {
            await connection.ConnectAsync().AsTask().WaitAsync(options.ServerTimeout, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is TimeoutException or NatsException or System.Net.Sockets.SocketException)
        {
            throw new NatsPipeException($"No NATS server answered at {Redacted(connection.Opts.Url)} within {options.ServerTimeout.TotalSeconds:0.#} s.", e);
        }

        if (options.Delivery != NatsDelivery.JetStream)
        {
            return (null, 0);
        }

        var js = new NatsJSContext(connection);
        var config = new StreamConfig(options.StreamName, [options.Subject, Envelope.EndSubject(options.Subject)])
        {
            Storage = StreamConfigStorage.File,
            Retention = StreamConfigRetention.Limits,
            Discard = StreamConfigDiscard.New,
            MaxBytes = options.StreamMaxBytes,
            DuplicateWindow = options.DuplicateWindow,
        };
        var stream = await AskAsync(connection, options, js.CreateOrUpdateStreamAsync(config, cancellationToken), $"the stream '{options.StreamName}' for '{options.Subject}'", " (is JetStream enabled, nats-server -js?)", cancellationToken).ConfigureAwait(false);
        return (js, stream.Info.State.LastSeq);
    }

    /// <summary>
    /// A JetStream set-up call (a stream, a consumer) within the server timeout, its refusal or silence turned into a
    /// <see cref="NatsPipeException"/> that names <paramref name="what"/> and the server without credentials.
    /// </summary>
    internal static async Task<TResult> AskAsync<TResult>(NatsConnection connection, NatsPipeOptions options, ValueTask<TResult> call, string what, string hint, CancellationToken cancellationToken)
    {
        try
        {
            return await call.AsTask().WaitAsync(options.ServerTimeout, cancellationToken).ConfigureAwait(false);
        }
        catch (NatsJSApiException e)
        {
            throw new NatsPipeException($"The server at {Redacted(connection.Opts.Url)} refused {what}: {e.Error.Description} ({e.Error.ErrCode}).", e);
        }
        catch (Exception e) when (e is TimeoutException or NatsException)
        {
            throw new NatsPipeException($"The server at {Redacted(connection.Opts.Url)} did not set up {what} within {options.ServerTimeout.TotalSeconds:0.#} s{hint}.", e);
        }
    }

    /// <summary>Waits for <paramref name="task"/> within the server timeout; the server's silence is a <see cref="NatsPipeException"/> that says what it was asked.</summary>
    internal static async Task WithinServerTimeout(NatsConnection connection, NatsPipeOptions options, Task task, string what, CancellationToken cancellationToken)
    {
        try
        {
            await task.WaitAsync(options.ServerTimeout, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException e)
        {
            throw new NatsPipeException($"The server at {Redacted(connection.Opts.Url)} did not answer within {options.ServerTimeout.TotalSeconds:0.#} s while {what}.", e);
        }
    }

    /// <summary>A server's address fit for a message or a log: any user name, password or token in it replaced.</summary>
    internal static string Redacted(string url)
    {
        var first = url.Split(',')[0].Trim();
        return Uri.TryCreate(first, UriKind.Absolute, out var uri) && uri.UserInfo.Length > 0
            ? first.Replace(uri.UserInfo + "@", "***@", StringComparison.Ordinal)
            : first;
    }
}
