using Concurrency.Messaging.Tests.Races;

namespace Concurrency.Messaging.Tests.Stress;

/// <summary>
/// Every pipe kind under both runners (bounded ones at capacities 1, 16 and 64) in every topology, producers racing a Complete and an abort
/// with TryPost, and bounded ones also with cancelled PostAsync; each id checked off in a bitmap (see <see cref="CloseRace"/>).
/// CI runs this tier on free cores and pinned to one core.
/// </summary>
[Trait("Category", "Stress")]
public sealed class CloseRaceStressTests
{
    private const int Messages = 60_000;

    private static readonly (int Producers, int Consumers, PipeDistribution Distribution)[] Topologies =
    [
        (1, 1, PipeDistribution.Broadcast),
        (4, 1, PipeDistribution.Broadcast),
        (1, 3, PipeDistribution.Broadcast),
        (4, 3, PipeDistribution.Broadcast),
        (2, 3, PipeDistribution.WorkSharing),
        (1, 3, PipeDistribution.WorkSharing),
    ];

    public static TheoryData<string, int, int, PipeDistribution, RaceEnd, RacePost> Cases()
    {
        var cases = new TheoryData<string, int, int, PipeDistribution, RaceEnd, RacePost>();
        var kinds = RaceKinds.Unbounded.Concat(RaceKinds.BoundedAtEveryCapacity());
        foreach (var kind in kinds)
        {
            var (pipeKind, options) = RaceKinds.Parse(kind);
            foreach (var (producers, consumers, distribution) in Topologies)
            {
                if (!RaceKinds.Supports(pipeKind, producers, consumers, distribution))
                {
                    continue;
                }

                foreach (var end in Enum.GetValues<RaceEnd>())
                {
                    cases.Add(kind, producers, consumers, distribution, end, RacePost.TryPost);
                    if (options.Capacity is not null)
                    {
                        cases.Add(kind, producers, consumers, distribution, end, RacePost.CancelledPostAsync);
                    }
                }
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Post_RacingClose_AcceptedMeansHandledByEveryConsumerOnce(
        string kind, int producers, int consumers, PipeDistribution distribution, RaceEnd end, RacePost post)
    {
        var (pipeKind, options) = RaceKinds.Parse(kind);
        await new CloseRace(pipeKind, options with { Producers = producers, Distribution = distribution }, consumers, end, post)
            .RunAsync(Messages / producers, StressCase.Budget);
    }
}
