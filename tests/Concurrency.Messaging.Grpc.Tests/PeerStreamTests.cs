using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// One server stream without a network: the reader's side of <see cref="PeerStream"/> driven directly, its response
/// stream a recorder. An answer made inline is written inline when nothing is queued for the write loop; replies still go
/// out in order when inline writes and the loop's take turns; a write that fails stops the stream and leaves the replies
/// remembered for the client's next one.
/// </summary>
public sealed class PeerStreamTests
{
    [Fact]
    public async Task AcceptAsync_EchoAndIdleWriter_WritesTheReplyBeforeReturning()
    {
        var writer = new RecordingWriter();
        using var offline = new OfflineStream(writer);
        var stream = offline.Stream;

        var accepted = stream.AcceptAsync(Requests(1, 3));

        Assert.True(accepted.IsCompletedSuccessfully);
        Assert.Equal([1UL, 2UL, 3UL], writer.Sequences());
        await stream.CloseAsync().DefaultTimeout();
    }

    /// <summary>
    /// The server turns each request envelope into its reply and resets every field a reply may carry (PeerStream's
    /// answer). Driven with a request whose every field is set, here found by reflection: the reply carries the request's
    /// sequence and the answer's type, source and payload, and every other field at its default. A field added to
    /// <see cref="Envelope"/> later is set here too, and would come back from the request unasked unless the answer learns
    /// to reset it: this fails first, and names the field.
    /// </summary>
    [Fact]
    public async Task Envelope_FieldsTheReplyResets_AreAllTheEnvelopeHas()
    {
        var answer = new PeerMessage("answer", "server", new byte[] { 9, 9 });
        var writer = new RecordingWriter();
        using var offline = new OfflineStream(writer, new PeerServerOptions { Handler = (_, _) => ValueTask.FromResult(answer) });
        var stream = offline.Stream;
        var fields = Envelope.Descriptor.Fields.InDeclarationOrder();
        var request = new Envelope();
        foreach (var field in fields)
        {
            field.Accessor.SetValue(request, field.FieldType switch
            {
                FieldType.UInt64 => (object)1UL,
                FieldType.Bool => true,
                FieldType.Bytes => ByteString.CopyFromUtf8("the request's"),
                FieldType.String when field.Name == "trace_parent" => "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                FieldType.String => $"the request's {field.Name}",
                _ => throw new InvalidOperationException($"Envelope.{field.Name} is a {field.FieldType}: give it a value here."),
            });
        }

        await stream.AcceptAsync(new PeerBatch { Envelopes = { request } }).AsTask().DefaultTimeout();
        await stream.CloseAsync().DefaultTimeout();

        var reply = Assert.Single(writer.Replies());
        var expected = new Envelope { Sequence = 1, Type = answer.Type, Source = answer.Source, Payload = ByteString.CopyFrom(answer.Payload.Span) };
        Assert.All(fields, field => Assert.True(Equals(field.Accessor.GetValue(expected), field.Accessor.GetValue(reply)), $"the reply's {field.Name} is {field.Accessor.GetValue(reply)}"));
    }

    [Fact]
    public async Task AcceptAsync_WritesThatSometimesWaitBesideHeartbeats_RepliesEveryRequestOnceInOrder()
    {
        var writer = new RecordingWriter { WaitEvery = 3 };
        using var offline = new OfflineStream(writer, new PeerServerOptions { MaxQueuedBatches = 2 });
        var stream = offline.Stream;

        ulong next = 1;
        for (var batch = 0; batch < 200; batch++)
        {
            if (batch % 7 == 0)
            {
                stream.Heartbeat();
            }

            var count = 1 + (batch % 5);
            await stream.AcceptAsync(Requests(next, count)).AsTask().DefaultTimeout();
            next += (ulong)count;
        }

        await stream.CloseAsync().DefaultTimeout();
        var sequences = writer.Sequences();
        Assert.Equal(Enumerable.Range(1, (int)next - 1).Select(i => (ulong)i), sequences);
    }

    [Fact]
    public async Task AcceptAsync_InlineWriteFails_StopsTheStreamAndKeepsTheRepliesRemembered()
    {
        using var offline = new OfflineStream(new RecordingWriter { Fail = true });
        var stream = offline.Stream;

        await stream.AcceptAsync(Requests(1, 4)).AsTask().DefaultTimeout();

        Assert.True(offline.Stop.IsCancellationRequested);
        Assert.Equal(4, offline.Session.RememberedCount);
        await stream.CloseAsync().DefaultTimeout();
    }

    private static PeerBatch Requests(ulong first, int count)
    {
        var batch = new PeerBatch();
        for (var i = 0; i < count; i++)
        {
            batch.Envelopes.Add(new Envelope { Sequence = first + (ulong)i, Type = "echo", Payload = ByteString.CopyFrom((byte)i) });
        }

        return batch;
    }

    // Records the replies (copies: the server reuses a request's envelope for its reply) as they are written; one writer at a time, as gRPC requires.
    private sealed class RecordingWriter : IServerStreamWriter<PeerBatch>
    {
        private readonly List<Envelope> _replies = []; // guarded by itself: written by the writing thread, read by the test
        private int _writes;
        private int _writing;

        public WriteOptions? WriteOptions { get; set; }

        // Every so many writes completes later, on another thread, as a write the client is slow to take does.
        public int WaitEvery { get; init; }

        public bool Fail { get; init; }

        public Task WriteAsync(PeerBatch message, CancellationToken cancellationToken)
            => cancellationToken.IsCancellationRequested ? Task.FromCanceled(cancellationToken) : WriteAsync(message);

        public async Task WriteAsync(PeerBatch message)
        {
            Assert.Equal(0, Interlocked.Exchange(ref _writing, 1));
            try
            {
                if (Fail)
                {
                    throw new IOException("The client went away.");
                }

                lock (_replies)
                {
                    _replies.AddRange(message.Envelopes.Select(envelope => envelope.Clone()));
                }

                if (WaitEvery > 0 && ++_writes % WaitEvery == 0)
                {
                    await Task.Delay(1).ConfigureAwait(false);
                }
            }
            finally
            {
                Volatile.Write(ref _writing, 0);
            }
        }

        public List<Envelope> Replies()
        {
            lock (_replies)
            {
                return [.. _replies];
            }
        }

        public List<ulong> Sequences() => [.. Replies().Select(reply => reply.Sequence)];
    }
}
