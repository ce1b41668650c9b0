using NATS.Client.JetStream;
using NATS.Client.JetStream.Models;
using NATS.Client.KeyValueStore;

namespace Concurrency.Messaging.Nats.Tests;

/// <summary>
/// NATS.Net 3.3.2's key-value calls that the benchmarks' identity yardsticks (<c>NatsKvSequence</c>, <c>NatsKvBlocks</c>)
/// make, against the server Debian packages (2.9.10): a bucket, a key created once, read with its revision, and moved by
/// compare-and-set on that revision; then what 2.9 does not do, found by trying each key-value option newer servers know.
/// </summary>
public sealed class KeyValueSmokeTests
{
    [Fact]
    public async Task The_packaged_server_answers_every_key_value_call_the_identity_yardsticks_make()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("kv-smoke");
        var ct = TestContext.Current.CancellationToken;
        var js = new NatsJSContext(connection);
        var kv = new NatsKVContext(js);

        // The bucket as the yardsticks make it: file storage, history 1. Making it again with the same configuration is
        // no error (racing openers); with another configuration it is refused, and the bucket opens as it is.
        var config = new NatsKVConfig("IDS") { Storage = NatsKVStorageType.File, History = 1 };
        var store = await kv.CreateStoreAsync(config, ct).AsTask().DefaultTimeout();
        await kv.CreateStoreAsync(config, ct).AsTask().DefaultTimeout();
        var stream = await js.GetStreamAsync("KV_IDS", cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.Equal(StreamConfigStorage.File, stream.Info.Config.Storage);
        Assert.Equal(1, stream.Info.Config.MaxMsgsPerSubject);
        var different = await Assert.ThrowsAsync<NatsJSApiException>(() => kv.CreateStoreAsync(config with { History = 5 }, ct).AsTask()).DefaultTimeout();
        Assert.Equal(10058, different.Error.ErrCode); // stream name already in use with a different configuration
        Assert.Equal("IDS", (await kv.GetStoreAsync("IDS", ct).AsTask().DefaultTimeout()).Bucket);

        // A key never written reads as not found (no exception with the Try form); creating it is once only, whether by
        // CreateAsync or, as the yardsticks create it, by an update on revision 0 (nothing written yet).
        var missing = await store.TryGetEntryAsync<long>("seq", cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.IsType<NatsKVKeyNotFoundException>(missing.Error);
        var created = await store.UpdateAsync("seq", 1L, revision: 0, cancellationToken: ct).AsTask().DefaultTimeout();
        await Assert.ThrowsAsync<NatsKVWrongLastRevisionException>(() => store.UpdateAsync("seq", 1L, revision: 0, cancellationToken: ct).AsTask()).DefaultTimeout();
        await Assert.ThrowsAsync<NatsKVCreateException>(() => store.CreateAsync("seq", 1L, cancellationToken: ct).AsTask()).DefaultTimeout();

        // Read with its revision; an update on that revision succeeds and makes a new one.
        var entry = await store.GetEntryAsync<long>("seq", cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.Equal((1L, created), (entry.Value, entry.Revision));
        var updated = await store.UpdateAsync("seq", 2L, entry.Revision, cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.True(updated > entry.Revision);

        // An update on a stale revision (another client won) is refused with this type, and changes nothing.
        await Assert.ThrowsAsync<NatsKVWrongLastRevisionException>(() => store.UpdateAsync("seq", 3L, entry.Revision, cancellationToken: ct).AsTask()).DefaultTimeout();
        var stale = await store.TryUpdateAsync("seq", 3L, entry.Revision, cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.IsType<NatsKVWrongLastRevisionException>(stale.Error);
        var after = await store.GetEntryAsync<long>("seq", cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.Equal((2L, updated), (after.Value, after.Revision));

        // A deleted key reads as deleted, not missing (the yardsticks refuse it); an update on revision 0 is refused, but
        // CreateAsync writes it again from scratch: why the yardsticks do not create with CreateAsync.
        await store.DeleteAsync("seq", cancellationToken: ct).AsTask().DefaultTimeout();
        var deleted = await store.TryGetEntryAsync<long>("seq", cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.IsType<NatsKVKeyDeletedException>(deleted.Error);
        await Assert.ThrowsAsync<NatsKVWrongLastRevisionException>(() => store.UpdateAsync("seq", 1L, revision: 0, cancellationToken: ct).AsTask()).DefaultTimeout();
        await store.CreateAsync("seq", 1L, cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.Equal(1L, (await store.GetEntryAsync<long>("seq", cancellationToken: ct).AsTask().DefaultTimeout()).Value);
    }

    [Fact]
    public async Task Racing_creators_of_one_bucket_each_succeed_or_are_refused_as_name_in_use_or_subjects_overlapping()
    {
        const int Creators = 8, Rounds = 20;
        using var server = NatsTestServer.StartOrSkip();
        var ct = TestContext.Current.CancellationToken;
        var connections = Enumerable.Range(0, Creators).Select(i => server.Connect($"creator-{i}")).ToArray();
        try
        {
            for (var round = 0; round < Rounds; round++)
            {
                // The same configuration from every creator at once: on 2.9.10 one in a few hundred loses the race with
                // "subjects overlap with an existing stream" (10065) rather than succeeding; the yardsticks then open it.
                var bucket = $"RACE{round}";
                var config = new NatsKVConfig(bucket) { Storage = NatsKVStorageType.File, History = 1 };
                var outcomes = await Task.WhenAll(connections.Select(async c =>
                {
                    try
                    {
                        await new NatsKVContext(new NatsJSContext(c)).CreateStoreAsync(config, ct);
                        return 0;
                    }
                    catch (NatsJSApiException e)
                    {
                        return e.Error.ErrCode;
                    }
                })).DefaultTimeout();

                Assert.All(outcomes, code => Assert.True(code is 0 or 10058 or 10065, $"a racing creator was refused with {code}"));
                Assert.Contains(0, outcomes);
                Assert.Equal(bucket, (await new NatsKVContext(new NatsJSContext(connections[0])).GetStoreAsync(bucket, ct).AsTask().DefaultTimeout()).Bucket);
            }
        }
        finally
        {
            foreach (var connection in connections)
            {
                await connection.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task What_the_packaged_server_does_not_do_with_key_value_options_of_newer_servers()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("kv-smoke");
        var ct = TestContext.Current.CancellationToken;
        var js = new NatsJSContext(connection);
        var kv = new NatsKVContext(js);
        await connection.ConnectAsync().AsTask().DefaultTimeout();
        var version = Version.Parse(connection.ServerInfo!.Version.Split('-')[0]);
        var before210 = version < new Version(2, 10);
        var before211 = version < new Version(2, 11);

        // Compression (2.10): 2.9 takes the bucket and quietly stores it uncompressed.
        var compressed = await kv.CreateStoreAsync(new NatsKVConfig("COMPRESSED") { Compression = true }, ct).AsTask().DefaultTimeout();
        Assert.Equal(!before210, (await compressed.GetStatusAsync(ct).AsTask().DefaultTimeout()).IsCompressed);

        // Metadata (2.10): 2.9 takes the bucket and quietly drops the metadata.
        await kv.CreateStoreAsync(new NatsKVConfig("LABELLED") { Metadata = new Dictionary<string, string> { ["owner"] = "bench" } }, ct).AsTask().DefaultTimeout();
        var labelled = await js.GetStreamAsync("KV_LABELLED", cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.Equal(!before210, labelled.Info.Config.Metadata?.ContainsKey("owner") ?? false);

        // Limit markers and per-key TTLs (2.11): the client asks the server's JetStream API level first (2.9 reports none)
        // and refuses the bucket; and it refuses a key with a TTL in any bucket made without markers.
        var markers = kv.CreateStoreAsync(new NatsKVConfig("MARKED") { LimitMarkerTTL = TimeSpan.FromSeconds(5) }, ct).AsTask();
        if (before211)
        {
            await Assert.ThrowsAsync<NatsKVException>(() => markers).DefaultTimeout();
        }
        else
        {
            await markers.DefaultTimeout();
        }

        var plain = await kv.CreateStoreAsync(new NatsKVConfig("PLAIN"), ct).AsTask().DefaultTimeout();
        await Assert.ThrowsAsync<NatsKVException>(() => plain.CreateAsync("k", 1L, TimeSpan.FromSeconds(1), cancellationToken: ct).AsTask()).DefaultTimeout();
    }
}
