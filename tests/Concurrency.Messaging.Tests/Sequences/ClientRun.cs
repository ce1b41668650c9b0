using System.Diagnostics;

namespace Concurrency.Messaging.Tests.Sequences;

/// <summary>
/// Concurrent clients of one sequence service, each starting on a thread of its own and spinning at the start line until
/// all are there, so that the locking kinds (whose requests complete synchronously, a client's whole run in tens of
/// microseconds) really run side by side: a thread blocked at a barrier wakes tens of microseconds after its release. Each client awaits every request before the next; about one request in sixteen is
/// an update to a little above the client's last identity, the rest are nexts (each client's mix is seeded, so the same
/// every run). Records every identity and counts the contract's violations: an identity not above the client's previous
/// one, or not above the highest update acknowledged before the next was called.
/// </summary>
internal sealed class ClientRun(int clients, int requestsPerClient)
{
    private readonly List<long>[] _identities = [.. Enumerable.Range(0, clients).Select(_ => new List<long>(requestsPerClient))]; // [c]: client c's task only until the run ends
    private long _acknowledged;              // Interlocked: the highest update value acknowledged so far
    private int _notIncreasing;              // Interlocked
    private int _atOrBelowAcknowledgedUpdate; // Interlocked
    private int _updates;                    // Interlocked
    private int _arrived;                    // Interlocked: clients at the start line

    public int Identities => _identities.Sum(list => list.Count);

    public int DistinctIdentities() => _identities.SelectMany(list => list).Distinct().Count();

    public int Updates => Volatile.Read(ref _updates);

    public int NotIncreasing => Volatile.Read(ref _notIncreasing);

    public int AtOrBelowAcknowledgedUpdate => Volatile.Read(ref _atOrBelowAcknowledgedUpdate);

    /// <summary>Runs every client and completes when all have finished.</summary>
    public async Task RunAsync(ISequenceService service, CancellationToken cancellationToken)
    {
        var running = new Task[clients];
        for (var c = 0; c < clients; c++)
        {
            var client = c;
            running[c] = Task.Factory.StartNew(
                () =>
                {
                    WaitForEveryClient();
                    return ClientAsync(service, client, cancellationToken);
                },
                cancellationToken,
                TaskCreationOptions.LongRunning,
                TaskScheduler.Default).Unwrap();
        }

        await Task.WhenAll(running).ConfigureAwait(false);
    }

    private void WaitForEveryClient()
    {
        Interlocked.Increment(ref _arrived);
        var deadline = Stopwatch.GetTimestamp() + (10 * Stopwatch.Frequency); // bounded: a client that never arrives fails the run
        while (Volatile.Read(ref _arrived) < clients)
        {
            if (Stopwatch.GetTimestamp() > deadline)
            {
                throw new TimeoutException("The clients did not all reach the start line.");
            }

            Thread.SpinWait(20);
        }
    }

    private async Task ClientAsync(ISequenceService service, int client, CancellationToken cancellationToken)
    {
        var random = new Random(client);
        var identities = _identities[client];
        long last = 0;
        for (var i = 0; i < requestsPerClient; i++)
        {
            if (random.Next(16) == 0)
            {
                var value = last + 1 + random.Next(1_000);
                await service.UpdateAsync(value, cancellationToken).ConfigureAwait(false);
                InterlockedMax.Raise(ref _acknowledged, value);
                Interlocked.Increment(ref _updates);
                continue;
            }

            var floor = Interlocked.Read(ref _acknowledged);
            var identity = await service.NextAsync(cancellationToken).ConfigureAwait(false);
            if (identity <= last)
            {
                Interlocked.Increment(ref _notIncreasing);
            }

            if (identity <= floor)
            {
                Interlocked.Increment(ref _atOrBelowAcknowledgedUpdate);
            }

            identities.Add(identity);
            last = identity;
        }
    }
}
