using System.Diagnostics;
using System.Reactive.Subjects;
using Concurrency.Messaging.Linq;

// The rings' plain programs' message, consumer and ObserveOnRing run, shared by ring-probe and loop-probe's plain mode.
internal sealed record Item(long Value)
{
    // One run through a fresh ObserveOnRing of 4,096 slots: a subject posts every message; returns msg/s, checked.
    public static double ObserveOnRing(Item[] messages, bool checkOrder)
    {
        using var tally = new Tally(messages.Length, checkOrder);
        using var subject = new Subject<Item>();
        using var subscription = subject.ObserveOnRing(4096).Subscribe(tally.Handle);
        var watch = Stopwatch.StartNew();
        foreach (var message in messages)
        {
            subject.OnNext(message);
        }

        tally.Wait();
        watch.Stop();
        subject.OnCompleted();
        return tally.Check(watch.Elapsed);
    }
}

// The consumer's count and sum: written by the consumer only, read once the last message set the event.
internal sealed class Tally(long expected, bool checkOrder = false) : IDisposable
{
    private readonly ManualResetEventSlim _done = new();
    private long _count;
    private long _sum;
    private long _outOfOrder;

    public void Handle(Item message)
    {
        if (checkOrder && message.Value != _count)
        {
            _outOfOrder++;
        }

        _sum += message.Value;
        if (++_count == expected)
        {
            _done.Set();
        }
    }

    public void Wait()
    {
        if (!_done.Wait(TimeSpan.FromMinutes(1)))
        {
            throw new TimeoutException("The consumer did not handle every message within a minute.");
        }
    }

    public double Check(TimeSpan elapsed)
    {
        if (_count != expected || _sum != expected * (expected - 1) / 2 || _outOfOrder != 0)
        {
            throw new InvalidOperationException($"Handled {_count:N0} messages summing to {_sum:N0}, {_outOfOrder:N0} out of order: some were lost, repeated or reordered.");
        }

        return expected / elapsed.TotalSeconds;
    }

    public void Dispose() => _done.Dispose();
}
