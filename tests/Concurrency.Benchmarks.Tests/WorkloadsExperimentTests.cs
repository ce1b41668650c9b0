using Concurrency.Benchmarks.Pools.Workloads;

namespace Concurrency.Benchmarks.Tests;

/// <summary>The workloads experiment at smoke-test sizes: every workload on every worker kind, each result checked.</summary>
public sealed class WorkloadsExperimentTests
{
    [Fact]
    public void Run_Quick_OneRowPerWorkloadAndWorkerKind()
    {
        var outcome = new WorkloadsExperiment().Run(new LabContext(Environment.ProcessorCount, quick: true));

        var table = Assert.Single(outcome.Tables);
        // Four worker kinds for each of four workloads, two async shapes for the awaited search.
        Assert.Equal((4 * 4) + 2, table.Rows.Count);
        Assert.All(table.Rows, row => Assert.Equal(table.Columns.Count, row.Count));
        Assert.Contains("an awaited read", table.Note, StringComparison.Ordinal);
    }

    [Fact]
    public void RunAll_PartThrows_FailsThatOperationAndServesTheNext()
    {
        using var workers = new PipeWorkers(2);
        var ran = 0;

        var failure = Assert.Throws<LabVerificationException>(() => workers.RunAll([() => { }, () => throw new InvalidOperationException("part failed")]));
        workers.RunAll([() => Interlocked.Increment(ref ran), () => Interlocked.Increment(ref ran)]);

        Assert.Contains("part failed", failure.Message, StringComparison.Ordinal);
        Assert.Equal(2, ran);
    }
}
