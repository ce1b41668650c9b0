
namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// One experiment of the workload lab (<c>-- lab</c>). The lab runs it in a child process pinned to
/// <see cref="LabContext.Cores"/> cores, once per core count asked for (or once, on all cores, when
/// <see cref="PerCoreCount"/> is false), and writes its tables and charts into results/lab/LAB.md beside the seed's figures.
/// An experiment verifies what it did (counts, checksums) and throws <see cref="LabVerificationException"/> on a mismatch:
/// a fast wrong answer is not a result.
/// </summary>
public interface ILabExperiment
{
    /// <summary>Gets the name on the command line (<c>lab NAME</c>): lower case, no spaces.</summary>
    string Name { get; }

    /// <summary>Gets the section heading in LAB.md.</summary>
    string Title { get; }

    /// <summary>Gets one line for <c>lab --list</c>.</summary>
    string Description { get; }

    /// <summary>Gets Markdown placed under the heading: what the seed measured (its figures quoted) and how this run does it.</summary>
    string Method { get; }

    /// <summary>Gets whether the experiment runs once per core count (true) or once on all cores (false).</summary>
    bool PerCoreCount { get; }

    /// <summary>Runs the experiment in this process; <paramref name="context"/> says the cores it has and whether to run quick.</summary>
    LabOutcome Run(LabContext context);
}
