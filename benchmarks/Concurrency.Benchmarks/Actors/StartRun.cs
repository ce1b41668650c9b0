
namespace Concurrency.Benchmarks.Actors;

/// <summary>Tells a pinger to open its window: the run's quota and window are already in its <see cref="PingerTally"/>.</summary>
internal sealed class StartRun
{
    public static readonly StartRun Instance = new();

    private StartRun()
    {
    }
}
