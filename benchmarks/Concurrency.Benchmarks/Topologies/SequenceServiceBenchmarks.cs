using BenchmarkDotNet.Attributes;
using Concurrency.Messaging.Actors;
using Concurrency.Messaging.Sequences;

namespace Concurrency.Benchmarks.Topologies;

/// <summary>
/// The seed's throughput appendix: does serializing requests through an actor's mailbox cost more than a lock? One
/// identity service per case (global setup: built, and an actor handshaken with an update to 0 that changes nothing),
/// 1, 2, 4 or 8 clients (thread-pool tasks), each awaiting one <see cref="ISequenceService.NextAsync"/> after another.
/// An invocation is one block of <see cref="MessageCount"/> requests shared evenly by the clients; OperationsPerInvoke is
/// the block, so the time reads per request (msg/s is requests per second).
/// </summary>
/// <remarks>
/// Verification, per block: each client checks in its loop that its identities strictly increase, and sums them; the runner
/// then checks that the block handed out exactly the identities after the previous blocks' (the benchmark makes no
/// updates, so a block of N starts at N × blocks so far + 1): N of them, the lowest and highest at the ends of that range,
/// and their sum that of the range. A mismatch throws, failing the benchmark. The global cleanup asks for one more
/// identity, which must follow every block's, then disposes the service.
/// </remarks>
public class SequenceServiceBenchmarks : IVerifiedBenchmark
{
    public const int DefaultMessageCount = 1 << 14;

    private ActorSystem? _system;       // engine thread only: set by the global setup for the actor paths, shut down by the cleanup
    private ISequenceService? _service; // likewise
    private WorkloadCpuListener? _cpu;  // likewise
    private Task<ClientTally>[] _clients = []; // likewise: the current block's clients

    [ParamsAllValues]
    public SequenceServicePath Path { get; set; }

    [Params(1, 2, 4, 8)]
    public int Clients { get; set; } = 1;

    /// <summary>Gets or sets the requests per invocation (one block), shared evenly by the clients; OperationsPerInvoke assumes the default.</summary>
    public int MessageCount { get; set; } = DefaultMessageCount;

    /// <summary>Gets how many invocations handed out their block and passed verification (the CI test checks it).</summary>
    public int VerifiedRuns { get; private set; }

    /// <summary>Gets whether the global cleanup saw the identity after every block's and disposed the service.</summary>
    public bool VerifiedCompletion { get; private set; }

    private string Scenario => $"SequenceService {Path} with {Clients} clients";

    [GlobalSetup]
    public void BuildService()
    {
        if (Clients < 1 || MessageCount % Clients != 0)
        {
            throw new InvalidOperationException($"{Scenario}: a block of {MessageCount} requests does not divide evenly among {Clients} clients.");
        }

        _service = Path switch
        {
            SequenceServicePath.Simple => SequenceService.Create(SequenceServiceKind.Simple),
            SequenceServicePath.Sequence => SequenceService.Create(SequenceServiceKind.Sequence),
            SequenceServicePath.ActorBatchDrain => SequenceService.Create(SequenceServiceKind.Actor, _system = new ActorSystem(), MailboxKind.BatchDrain),
            SequenceServicePath.ActorBoundedChannel => SequenceService.Create(SequenceServiceKind.Actor, _system = new ActorSystem(), MailboxKind.BoundedChannel),
            SequenceServicePath.Locker => SequenceService.Create(SequenceServiceKind.Locker),
            _ => throw new ArgumentOutOfRangeException(nameof(Path), Path, "Unknown sequence service."),
        };
        RunLimit.Wait(_service.UpdateAsync(0).AsTask(), $"{Scenario}: the handshake");
        _clients = new Task<ClientTally>[Clients];
        _cpu = WorkloadCpuListener.StartIfRequested(CaseKey.Of(this));
    }

    [GlobalCleanup]
    public void DisposeService()
    {
        try
        {
            if (_service is { } service)
            {
                var expected = ((long)VerifiedRuns * MessageCount) + 1;
                var next = Take(service.NextAsync(), "the identity after the last block");
                if (next != expected)
                {
                    throw new InvalidOperationException($"{Scenario}: after {VerifiedRuns} blocks the next identity was {next}, expected {expected}.");
                }

                RunLimit.Wait(service.DisposeAsync().AsTask(), $"{Scenario}: disposing the service");
                VerifiedCompletion = true;
            }
        }
        finally
        {
            _service = null;
            if (_system is { } system)
            {
                RunLimit.Wait(system.ShutdownAsync(), $"{Scenario}: shutting the actor system down");
                _system = null;
            }

            _cpu?.Dispose(); // writes the case's CPU sample beside the results
            _cpu = null;
        }
    }

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void Next()
    {
        var service = _service ?? throw new InvalidOperationException("The service was not built: GlobalSetup did not run.");
        var perClient = MessageCount / Clients;
        for (var c = 0; c < _clients.Length; c++)
        {
            _clients[c] = Task.Run(() => ClientAsync(service, perClient));
        }

        RunLimit.Wait(Task.WhenAll(_clients), $"{Scenario}: a block of {MessageCount} requests");
        Verify();
        VerifiedRuns++;
    }

    /// <summary>One client's share of a block: awaits each request before the next, checking and summing as it goes.</summary>
    private static async Task<ClientTally> ClientAsync(ISequenceService service, int requests)
    {
        long first = 0, last = 0, sum = 0;
        var notIncreasing = 0;
        for (var i = 0; i < requests; i++)
        {
            var identity = await service.NextAsync().ConfigureAwait(false);
            if (identity <= last)
            {
                notIncreasing++;
            }

            if (i == 0)
            {
                first = identity;
            }

            last = identity;
            sum += identity;
        }

        return new ClientTally(first, last, sum, notIncreasing);
    }

    private void Verify()
    {
        long lowest = long.MaxValue, highest = long.MinValue, sum = 0;
        var notIncreasing = 0;
        foreach (var client in _clients)
        {
            var tally = client.Result; // completed: the block was waited for
            lowest = Math.Min(lowest, tally.First);
            highest = Math.Max(highest, tally.Last);
            sum += tally.Sum;
            notIncreasing += tally.NotIncreasing;
        }

        var before = (long)VerifiedRuns * MessageCount; // the last identity of the blocks before this one
        var expectedSum = (MessageCount * before) + ((long)MessageCount * (MessageCount + 1) / 2);
        if (notIncreasing != 0 || lowest != before + 1 || highest != before + MessageCount || sum != expectedSum)
        {
            throw new InvalidOperationException(
                $"{Scenario}, block {VerifiedRuns + 1}: {notIncreasing} identities not above their client's previous one; " +
                $"identities {lowest}..{highest} summing to {sum}, expected {before + 1}..{before + MessageCount} summing to {expectedSum}.");
        }
    }

    private long Take(ValueTask<long> request, string what)
    {
        var task = request.AsTask();
        RunLimit.Wait(task, $"{Scenario}: {what}");
        return task.Result;
    }

    /// <summary>What one client saw in one block: its first and last identity, their sum, and how many failed to increase.</summary>
    private readonly record struct ClientTally(long First, long Last, long Sum, int NotIncreasing);
}
