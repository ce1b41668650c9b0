using Concurrency.Messaging.Actors;

namespace Concurrency.Messaging.CrashProbe;

/// <summary>
/// The probe's "failure-subscriber" mode: a subscriber of <see cref="ActorSystem.Failures"/> that throws must not take the
/// process down from inside an actor's turn. Exit 0 and "survived" when the actor handled a message after the failure;
/// an unhandled exception (a non-zero exit) is the defect.
/// </summary>
internal static class FailureSubscriberCrash
{
    public static int Run()
    {
        var wait = TimeSpan.FromSeconds(20);
        var system = new ActorSystem();
        using var subscription = system.Failures.Subscribe(_ => throw new InvalidOperationException("subscriber"));
        using var handled = new ManualResetEventSlim(false);
        var actor = system.Spawn(() => new Thrower(handled));

        actor.Tell(-1); // the handler throws, the failure is reported, the subscriber throws
        actor.Tell(1);  // handled only if the turn carried on
        if (!handled.Wait(wait))
        {
            Console.Error.WriteLine($"The actor handled nothing after the failure within {wait.TotalSeconds} s.");
            return 3;
        }

        system.DisposeAsync().AsTask().Wait(wait);
        Console.WriteLine($"survived: failures {system.FailureCount}, subscriber errors {system.SubscriberErrorCount}");
        return 0;
    }

    private sealed class Thrower(ManualResetEventSlim handled) : Actor<int>
    {
        protected override void Receive(int message)
        {
            if (message < 0)
            {
                throw new InvalidOperationException("handler");
            }

            handled.Set();
        }
    }
}
