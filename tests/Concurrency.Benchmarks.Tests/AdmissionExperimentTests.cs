using Concurrency.Benchmarks.Pools.Admission;

namespace Concurrency.Benchmarks.Tests;

/// <summary>The admission experiment runs quick, in-process, through its verification, so a broken one fails CI without timing anything.</summary>
public sealed class AdmissionExperimentTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task Admission_QuickRun_ARowPerPolicyAndThreadCountAndALinePerPolicy()
    {
        var outcome = await Task.Run(() => new AdmissionExperiment().Run(new LabContext(Environment.ProcessorCount, quick: true)), TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);

        var table = Assert.Single(outcome.Tables);
        Assert.Equal(9, table.Rows.Count); // three policies at 1, 2 and 4 threads
        Assert.All(table.Rows, r => Assert.Equal(table.Columns.Count, r.Count));
        Assert.False(string.IsNullOrWhiteSpace(table.Note));
        Assert.Equal(["none", "reject", "throttle"], outcome.Charts.Single().Series.Select(s => s.Label));
    }

    [Fact]
    public void All_AdmissionExperiment_Registered()
    {
        Assert.IsType<AdmissionExperiment>(LabExperiments.Named("admission"));
        Assert.Contains(LabExperiments.All, e => e is AdmissionExperiment);
    }
}
