using System.Diagnostics;

namespace Concurrency.Benchmarks.UserShaped;

/// <summary>When a launch measures: the first messages a fresh process posts, or after the same pipe has run a while.</summary>
public enum UserShapedPhase
{
    Cold,
    Steady,
}

/// <summary>One launch's figures for one path: a fresh process, one pipe, one measured run of the messages.</summary>
public sealed record UserShapedResult(
    UserShapedPath Path,
    UserShapedPhase Phase,
    int Cores,
    double MessagesPerSecond,
    double CpuNanosecondsPerMessage,
    double? ProducerCpuNanosecondsPerPost,
    int WarmRounds);

/// <summary>
/// The child's side: one pipe created once; for <see cref="UserShapedPhase.Steady"/> it first runs rounds of the same
/// messages for the warm time (each round waits until the consumer caught up, so no unbounded queue grows), then the
/// measured run posts 0..n−1 and ends with Complete and Completion, as a user's program ends. Every message's handler
/// adds it to a sum, checked against n(n−1)/2 per round: a wrong sum fails the launch. Beside the process's CPU, the
/// producer thread's own CPU over its posts (Linux), which is the post's cost plus any wait for room.
/// </summary>
internal static class UserShapedLaunch
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(2);

    /// <summary>Measures in this process, which the caller has pinned to <paramref name="cores"/> (the child does).</summary>
    /// <exception cref="InvalidOperationException">The handlers' sum is not the sum of what was posted.</exception>
    public static UserShapedResult Measure(UserShapedPath path, UserShapedPhase phase, int cores, int messages, TimeSpan warm)
    {
        var tally = new Tally();
        var contender = UserShapedContender.Create(path, tally);
        var roundSum = (long)messages * (messages - 1) / 2;
        var expected = 0L;
        var rounds = 0;
        if (phase == UserShapedPhase.Steady)
        {
            var warming = Stopwatch.StartNew();
            while (warming.Elapsed < warm)
            {
                contender.PostRange(0, messages);
                expected += roundSum;
                WaitForSum(tally, expected, path);
                rounds++;
            }
        }

        var cpuBefore = ProcessCpu();
        var start = Stopwatch.GetTimestamp();
        var producerBefore = ThreadCpu.IsAvailable ? ThreadCpu.Now() : 0;
        contender.PostRange(0, messages);
        double? producer = ThreadCpu.IsAvailable ? (double)(ThreadCpu.Now() - producerBefore) / messages : null;
        contender.CompleteAndWait(Limit);
        var elapsed = Stopwatch.GetElapsedTime(start);
        var cpu = ProcessCpu() - cpuBefore;
        expected += roundSum;
        var sum = Volatile.Read(ref tally.Sum);
        if (sum != expected)
        {
            throw new InvalidOperationException($"{path}: the handlers summed {sum:N0}, not {expected:N0}: messages were lost or repeated.");
        }

        return new UserShapedResult(path, phase, cores, messages / elapsed.TotalSeconds, cpu.TotalNanoseconds / messages, producer, rounds);
    }

    private static TimeSpan ProcessCpu()
    {
        using var self = Process.GetCurrentProcess();
        return self.TotalProcessorTime;
    }

    private static void WaitForSum(Tally tally, long expected, UserShapedPath path)
    {
        var waited = Stopwatch.StartNew();
        var spinner = default(SpinWait);
        while (Volatile.Read(ref tally.Sum) != expected)
        {
            if (waited.Elapsed > Limit)
            {
                throw new TimeoutException($"{path}: the consumer summed {Volatile.Read(ref tally.Sum):N0} of {expected:N0} within {Limit.TotalSeconds:0} s.");
            }

            spinner.SpinOnce();
        }
    }
}
