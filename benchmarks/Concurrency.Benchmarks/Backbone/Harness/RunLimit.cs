
namespace Concurrency.Benchmarks.Backbone.Harness;

/// <summary>
/// The longest any wait in a run may take. The slowest case moves a block in well under a second here, so a wait still
/// going after this is stuck: it throws, and the benchmark (or the CI test) fails instead of hanging.
/// </summary>
public static class RunLimit
{
    public static readonly TimeSpan Timeout = TimeSpan.FromMinutes(2);

    /// <summary>Waits for <paramref name="task"/> (rethrowing its fault) or throws once the limit passes.</summary>
    public static void Wait(Task task, string what)
    {
        try
        {
            if (!task.Wait(Timeout))
            {
                throw Stuck(what);
            }
        }
        catch (AggregateException)
        {
            // Rethrown below without the wrapper, so the benchmark's failure names the real exception.
        }

        task.GetAwaiter().GetResult();
    }

    /// <summary>Waits for <paramref name="signal"/> or throws once the limit passes.</summary>
    public static void Wait(ManualResetEventSlim signal, string what)
    {
        if (!signal.Wait(Timeout))
        {
            throw Stuck(what);
        }
    }

    public static TimeoutException Stuck(string what) => new($"{what} did not finish within {Timeout.TotalSeconds:0} s.");
}
