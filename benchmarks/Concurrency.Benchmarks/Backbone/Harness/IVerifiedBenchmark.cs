
namespace Concurrency.Benchmarks.Backbone.Harness;

/// <summary>
/// What a benchmark checked of its own runs, which CI asks after running a case in-process: how many invocations passed
/// their verification, and whether the global cleanup checked the totals of all of them.
/// </summary>
public interface IVerifiedBenchmark
{
    /// <summary>Gets how many invocations ran and passed verification.</summary>
    int VerifiedRuns { get; }

    /// <summary>Gets whether the global cleanup checked the totals of every verified run.</summary>
    bool VerifiedCompletion { get; }
}
