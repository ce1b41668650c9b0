using System.CommandLine;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// The experiment pipeline every measuring command goes through: a child's command line made from its parent's, the
/// launches' rotation, the header and the files it writes.
/// </summary>
public sealed class ExperimentTests
{
    [Fact]
    public void ChildArguments_ParentLine_KeepsWhatWasGivenLessTheParentsOwnAndSetsTheChildsValues()
    {
        var parse = Parse("actors", "--launches", "3", "--quick", "--steady-seconds", "0.5", "--out", "somewhere");

        var child = ChildArguments.Of(parse, Find<int>(parse, "--launches"), Find<string?>(parse, "--out"))
            .With(Find<string?>(parse, "--contender"), "AkkaNet");

        Assert.Equal(["actors", "--quick", "--steady-seconds", "0.5", "--contender", "AkkaNet"], child.ToList());
    }

    [Fact]
    public void ChildArguments_ChildLine_ParsesBackToTheValuesItWasGiven()
    {
        var parse = Parse("latency", "--contenders", "Ring", "PeerClient, async", "--seconds", "0.25", "--launches", "2");
        var seconds = Find<double>(parse, "--seconds");

        var child = ChildArguments.Of(parse, Find<int>(parse, "--launches")).With(seconds, 1.0 / 3);
        var again = Parse([.. child.ToList()]);

        Assert.Equal(1.0 / 3, again.GetValue(Find<double>(again, "--seconds")));
        Assert.Equal(["Ring", "PeerClient, async"], again.GetValue(Find<string[]>(again, "--contenders"))!);
        Assert.Equal(3, again.GetValue(Find<int>(again, "--launches"))); // left to the child's default
        Assert.DoesNotContain(BenchmarkProcess.ResultOption, child.ToList());
    }

    [Fact]
    public void ChildArguments_FlagFalseOrNull_LeftOut_AndAResultGivenIsNeverCarried()
    {
        var parse = Parse("footprint", "--actors", "10", "--contender", "AkkaNet", "--result", "file");
        var contender = Find<string?>(parse, "--contender");

        var child = ChildArguments.Of(parse).With(contender, null);

        Assert.Equal(["footprint", "--actors", "10"], child.ToList());
    }

    [Fact]
    public void LabChildLaunch_ParentLine_OneExperimentOneCoreCountThePeersAsGivenAndTheRuntimesSettings()
    {
        var parse = Parse("lab", "logs", "grpc", "--cores", "1,2", "--launches", "2", "--server", "http://10.0.0.2:5000", "--quick");
        var line = ChildArguments.Of(parse, Find<int>(parse, "--launches"));

        var launch = LabChild.Launch(line, LabExperiments.Named("grpc")!, cores: 2, quick: true, serverGc: false);

        Assert.Equal(["lab", "grpc", "--cores", "2", "--server", "http://10.0.0.2:5000", "--quick", "--gc", "workstation"], launch.Arguments.ToList());
        Assert.Equal("2", launch.Environment!["DOTNET_PROCESSOR_COUNT"]);
        Assert.Equal("0", launch.Environment["DOTNET_gcServer"]);
    }

    [Fact]
    public void LabChildLaunch_BareLineOfATestsProcess_SetsEverythingTheChildNeeds()
    {
        var launch = LabChild.Launch(ChildArguments.Bare("lab"), LabExperiments.Named("pool-burst")!, cores: 1, quick: false, serverGc: true, contender: "capped");

        Assert.Equal(["lab", "pool-burst", "--cores", "1", "--gc", "server", "--contender", "capped"], launch.Arguments.ToList());
    }

    [Fact]
    public void Rotation_EachLaunchTurnsTheOrderByOne()
    {
        string[] items = ["a", "b", "c"];

        Assert.Equal(["a", "b", "c"], Experiment.Rotation(items, 0));
        Assert.Equal(["b", "c", "a"], Experiment.Rotation(items, 1));
        Assert.Equal(["a", "b", "c"], Experiment.Rotation(items, 3));
    }

    [Fact]
    public void HeaderAndWrite_QuickRun_TitleWithCoresBannerMethodMachineCommandThenTheResultSetBeside()
    {
        var folder = Directory.CreateTempSubdirectory("experiment-");
        try
        {
            var parse = Parse("idle", "--seconds", "1", "--out", folder.FullName);
            var experiment = Experiment.Start(parse, Find<string?>(parse, "--out"));
            var measurement = Measurement.Of("idle", "Ring", ContenderFamily.Ours, string.Empty, Phase.Steady, experiment.Cores, Measurement.IdleCorePercent, [3, 1, 2]);

            var text = experiment.Header("What it costs", "How it was measured.", quick: "small sizes").AppendLine("| a |");
            var path = experiment.Write("IDLE.md", text, [measurement]);

            var written = File.ReadAllText(path);
            Assert.StartsWith($"# What it costs, {Experiment.CoreCount(Environment.ProcessorCount)}", written, StringComparison.Ordinal);
            Assert.Contains("**Quick run (--quick): small sizes. These numbers are not for publishing.**", written, StringComparison.Ordinal);
            Assert.Contains("How it was measured.", written, StringComparison.Ordinal);
            Assert.Contains("logical cores", written, StringComparison.Ordinal);
            Assert.Contains("-- idle --seconds 1 --out ", written, StringComparison.Ordinal);
            var set = ResultSet.Read(Path.ChangeExtension(path, ".json"));
            Assert.Equal("idle", set.Command);
            Assert.Equal((2.0, 1.0, 3.0), (Assert.Single(set.Measurements).Median, set.Measurements[0].Low, set.Measurements[0].High));
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    [Fact]
    public async Task ActorsChild_TheLineAParentOfAnEarlierBuildStarts_IsStillAcceptedAndWritesItsResult()
    {
        var file = Path.GetTempFileName();
        try
        {
            var (output, error) = (new StringWriter(), new StringWriter());
            string[] line = ["actors", "--runs", "1", "--steady-seconds", "0.01", "--contender", "BatchDrainMailbox", "--quick", BenchmarkProcess.ResultOption, file];

            var exit = await Task.Run(() => Program.Run(line, output, error), TestContext.Current.CancellationToken)
                .WaitAsync(TimeSpan.FromMinutes(2), TestContext.Current.CancellationToken);

            Assert.True(exit == 0, error.ToString());
            Assert.Contains("@progress ", output.ToString(), StringComparison.Ordinal);
            Assert.Contains("\"Contender\":\"BatchDrainMailbox\"", File.ReadAllText(file), StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(file);
        }
    }

    private static ParseResult Parse(params string[] args) => Commands.Create(machineCores: 2).Parse(args);

    private static Option<T> Find<T>(ParseResult parse, string name)
        => (Option<T>)parse.CommandResult.Command.Options.Single(o => o.Name == name);
}
