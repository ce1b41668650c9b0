// The peer service hosted in a plain ASP.NET Core app: options from appsettings.json (section "Peer"), logs through the
// app's providers, and a MeterListener printing the library's instruments. It starts, a PeerClient sends messages over
// loopback, the instruments are printed, and it stops: a run of a few seconds that exits by itself (0 when every reply came back).
using System.Diagnostics.Metrics;
using Concurrency.Messaging.Grpc;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;

const string MeterName = "Concurrency.Messaging";
const int Count = 1_000;

var builder = WebApplication.CreateBuilder(args);
builder.WebHost.UseUrls("http://127.0.0.1:0");
builder.WebHost.ConfigureKestrel(kestrel =>
{
    // The app owns Kestrel: HTTP/2 for the gRPC stream, and the limits PeerServer would set from its options.
    kestrel.ConfigureEndpointDefaults(endpoint => endpoint.Protocols = HttpProtocols.Http2);
    kestrel.Limits.MaxConcurrentConnections = 1_000;
    kestrel.Limits.Http2.MaxStreamsPerConnection = 16;
});
builder.Services.AddPeerService(builder.Configuration.GetSection("Peer"), PeerHandlers.Echo);

// The metrics listener: sums each counter, and reads the gauges when asked.
var totals = new SortedDictionary<string, long>(StringComparer.Ordinal);
using var listener = new MeterListener
{
    InstrumentPublished = (instrument, meterListener) =>
    {
        if (instrument.Meter.Name == MeterName)
        {
            lock (totals)
            {
                totals.TryAdd(instrument.IsObservable ? instrument.Name + " (now)" : instrument.Name, 0);
            }

            meterListener.EnableMeasurementEvents(instrument);
        }
    },
};
listener.SetMeasurementEventCallback<long>((instrument, value, _, _) =>
{
    lock (totals)
    {
        var key = instrument.IsObservable ? instrument.Name + " (now)" : instrument.Name;
        totals[key] = instrument.IsObservable ? value : totals.GetValueOrDefault(key) + value;
    }
});
// The duration histograms (seconds, per send and per handled request): counted, not summed.
listener.SetMeasurementEventCallback<double>((instrument, _, _, _) =>
{
    lock (totals)
    {
        totals[instrument.Name] = totals.GetValueOrDefault(instrument.Name) + 1;
    }
});
listener.Start();

await using var app = builder.Build();
app.MapPeerService();
app.MapGet("/", () => "A plain ASP.NET Core app; the peer service is mapped beside this endpoint.");
await app.StartAsync();

var address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
Console.WriteLine($"Peer service hosted at {address}");

long sum = 0;
await using (var client = await PeerClient.ConnectAsync(address))
{
    var replies = await Task.WhenAll(Enumerable.Range(1, Count).Select(i => client.SendAsync(new PeerMessage("number", "sample", BitConverter.GetBytes((long)i)))));
    sum = replies.Sum(reply => BitConverter.ToInt64(reply.Payload.Span));
    listener.RecordObservableInstruments();
    await client.CompleteAsync();
}

Console.WriteLine($"{Count:N0} messages sent, replies sum to {sum:N0} (expected {(long)Count * (Count + 1) / 2:N0})");
Console.WriteLine($"Instruments of the meter '{MeterName}':");
lock (totals)
{
    foreach (var (name, value) in totals)
    {
        Console.WriteLine($"  {name,-50} {value,12:N0}");
    }
}

await app.StopAsync();
return sum == (long)Count * (Count + 1) / 2 ? 0 : 1;
