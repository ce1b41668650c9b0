using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.IO.Compression;
using Concurrency.Benchmarks.Backbone.Latency;
using Concurrency.Messaging.Nats;
using HdrHistogram;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// <c>-- nats-consume --url URL</c> (hidden): the consumer end of <c>lab nats</c>, in a process of its own so that each
/// end's CPU is its own. Reads rounds from standard input, one per line (<c>round MODE SIDE SUBJECT MESSAGES</c>); for
/// each, sets up its consumer, prints <c>ready</c>, consumes, and prints <c>done HANDLED CHECKSUM LAST_TICKS CPU_NS
/// LATENCY</c> (times from the machine's monotonic clock, which every process on it shares; LATENCY the round's histogram
/// of post-to-handler nanoseconds as one word, see <see cref="Encode"/>, so that the lab can pool rounds). Ends when
/// standard input closes.
/// </summary>
internal static class NatsConsumeCommand
{
    public const string Name = "nats-consume";
    public const string Ready = "ready";
    public const string Done = "done";

    public static Command Create()
    {
        var url = new Option<string>("--url") { HelpName = "URL", Required = true, Description = "the NATS server" };
        var command = new Command(Name, "The consumer end of lab nats (started by it).") { url };
        command.Hidden = true;
        command.SetAction(parse => RunAsync(parse.GetValue(url)!, Console.In, parse.InvocationConfiguration.Output).GetAwaiter().GetResult());
        return command;
    }

    /// <summary>A round's line, as the lab writes it.</summary>
    public static string Round(NatsDelivery mode, NatsSide side, string subject, long messages)
        => string.Create(CultureInfo.InvariantCulture, $"round {mode} {side} {subject} {messages}");

    private static async Task<int> RunAsync(string url, TextReader input, TextWriter output)
    {
        await using var connection = NatsEnds.Connect(url, "lab-consumer");
        using var process = Process.GetCurrentProcess();
        while (await input.ReadLineAsync().ConfigureAwait(false) is { } line)
        {
            var parts = line.Split(' ');
            if (parts is not ["round", var mode, var side, var subject, var count])
            {
                await Console.Error.WriteLineAsync($"not a round: {line}").ConfigureAwait(false);
                return 2;
            }

            using var bound = new CancellationTokenSource(TimeSpan.FromMinutes(5));
            process.Refresh();
            var cpu = process.TotalProcessorTime;
            var consumed = await NatsEnds.ConsumeAsync(
                connection,
                Enum.Parse<NatsDelivery>(mode),
                Enum.Parse<NatsSide>(side),
                subject,
                long.Parse(count, CultureInfo.InvariantCulture),
                () =>
                {
                    output.WriteLine(Ready);
                    output.Flush();
                },
                bound.Token).ConfigureAwait(false);
            process.Refresh();
            var used = process.TotalProcessorTime - cpu;
            output.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"{Done} {consumed.Handled} {consumed.Checksum} {consumed.LastHandled} {used.Ticks * 100} {Encode(consumed.Latency)}"));
            output.Flush();
        }

        return 0;
    }

    /// <summary>
    /// A histogram as one word of a line: how many buckets it recorded, then each one's value and count, as 7-bit
    /// variable-length integers, deflated, in base64. (HdrHistogram's own compressed encoding refused to read some of
    /// what it wrote: "the buffer does not contain the indicated payload amount".)
    /// </summary>
    public static string Encode(HistogramBase histogram)
    {
        ArgumentNullException.ThrowIfNull(histogram);
        using var packed = new MemoryStream();
        using (var deflate = new DeflateStream(packed, CompressionLevel.Fastest, leaveOpen: true))
        using (var writer = new BinaryWriter(deflate))
        {
            // Copied out as it goes: the iteration hands back one value object, changed at each step.
            var buckets = histogram.RecordedValues().Select(bucket => (bucket.ValueIteratedTo, bucket.CountAtValueIteratedTo)).ToList();
            writer.Write7BitEncodedInt(buckets.Count);
            foreach (var (value, count) in buckets)
            {
                writer.Write7BitEncodedInt64(value);
                writer.Write7BitEncodedInt64(count);
            }
        }

        return Convert.ToBase64String(packed.GetBuffer(), 0, (int)packed.Length);
    }

    /// <summary>The histogram <see cref="Encode"/> wrote (nanoseconds up to <see cref="LatencyRecorder.LongestNanoseconds"/>).</summary>
    /// <exception cref="FormatException">The word is not one <see cref="Encode"/> wrote.</exception>
    public static HistogramBase Decode(string word)
    {
        var histogram = new LongHistogram(LatencyRecorder.LongestNanoseconds, 3);
        try
        {
            using var reader = new BinaryReader(new DeflateStream(new MemoryStream(Convert.FromBase64String(word)), CompressionMode.Decompress));
            for (var buckets = reader.Read7BitEncodedInt(); buckets > 0; buckets--)
            {
                histogram.RecordValueWithCount(reader.Read7BitEncodedInt64(), reader.Read7BitEncodedInt64());
            }

            if (reader.BaseStream.ReadByte() >= 0)
            {
                throw new InvalidDataException("More follows the last bucket.");
            }
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            throw new FormatException($"Not a latency histogram of nats-consume ({e.GetType().Name}: {e.Message}).", e);
        }

        return histogram;
    }
}
