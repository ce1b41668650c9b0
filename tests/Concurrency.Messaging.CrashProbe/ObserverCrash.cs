using System.Reactive.Concurrency;
using System.Reactive.Linq;
using System.Reactive.Subjects;
using Concurrency.Messaging.Linq;

namespace Concurrency.Messaging.CrashProbe;

/// <summary>The probe's "ring" and "rx" modes: an observer whose onNext throws must take the process down.</summary>
internal static class ObserverCrash
{
    public static int Run(string mode)
    {
        // Subscribes an observer with only an onNext, which throws, behind an ObserveOn operator, and pushes one message. Rx's
        // default onError rethrows, so the process should die of that unhandled exception; exit code 0 means it vanished.
        var wait = TimeSpan.FromSeconds(20);
        using var subject = new Subject<int>();
        IObservable<int> observed = mode switch
        {
            "ring" => subject.ObserveOnRing(),
            "rx" => subject.ObserveOn(ThreadPoolScheduler.Instance),
            _ => throw new ArgumentException("Usage: Concurrency.Messaging.CrashProbe ring|rx"),
        };

        using var subscription = observed.Subscribe(_ => throw new InvalidOperationException("probe"));
        subject.OnNext(1);

        // Nothing sets this: the process either dies first or reports, after a bounded wait, that nothing surfaced.
        using var never = new ManualResetEventSlim(false);
        never.Wait(wait);
        Console.Error.WriteLine($"No unhandled exception within {wait.TotalSeconds} s.");
        return 0;
    }
}
