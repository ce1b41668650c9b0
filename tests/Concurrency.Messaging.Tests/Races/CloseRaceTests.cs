namespace Concurrency.Messaging.Tests.Races;

/// <summary>
/// The races a loss hunt found against the public API, each in its smallest form, a few rounds each: producers post while
/// another thread completes or aborts the pipe (see <see cref="CloseRace"/>). The stress tier runs every kind and topology.
/// </summary>
public sealed class CloseRaceTests
{
    private const int PerProducer = 25_000;
    private const int Rounds = 3;

    public static TheoryData<string, int, int, RaceEnd, RacePost> Cases() => new()
    {
        // A TryPost refused by a full later lane had already reached the first: handled twice once retried.
        { "BlockingCollection-64", 1, 3, RaceEnd.Complete, RacePost.TryPost },
        { "BlockingCollection-64", 4, 3, RaceEnd.Complete, RacePost.TryPost },
        { "BlockingCollection-64", 4, 3, RaceEnd.Abort, RacePost.TryPost },

        // A Complete landing between a post's lanes cut an accepted broadcast in half.
        { "Channel", 1, 3, RaceEnd.Complete, RacePost.TryPost },
        { "Channel", 4, 3, RaceEnd.Complete, RacePost.TryPost },

        // A cancelled wait for room in a later lane left the earlier lanes with the message.
        { "Channel-64", 1, 3, RaceEnd.Complete, RacePost.CancelledPostAsync },
        { "BlockingCollection-16", 2, 3, RaceEnd.Complete, RacePost.CancelledPostAsync },

        // The ring's close and its single-producer gate.
        { "Ring-16", 1, 3, RaceEnd.Complete, RacePost.TryPost },
        { "Ring-16", 1, 3, RaceEnd.Abort, RacePost.CancelledPostAsync },
        { "BatchDrainQueue", 4, 3, RaceEnd.Complete, RacePost.TryPost },

        // The same races with consumers run as thread-pool turns (or a Channel's on a thread), which close by notifying.
        { "BlockingCollection-64@pool", 4, 3, RaceEnd.Abort, RacePost.TryPost },
        { "Channel@thread", 4, 3, RaceEnd.Complete, RacePost.TryPost },
        { "Ring-16@pool", 1, 3, RaceEnd.Complete, RacePost.TryPost },
        { "Ring-16@pool", 1, 3, RaceEnd.Abort, RacePost.CancelledPostAsync },
        { "BatchDrainQueue@pool", 4, 3, RaceEnd.Complete, RacePost.TryPost },
        { "ReaderWriterLockQueue@pool", 4, 3, RaceEnd.Complete, RacePost.TryPost },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Post_RacingClose_AcceptedMeansHandledByEveryConsumerOnce(string kind, int producers, int consumers, RaceEnd end, RacePost post)
    {
        var (pipeKind, options) = RaceKinds.Parse(kind);
        for (var round = 0; round < Rounds; round++)
        {
            await new CloseRace(pipeKind, options with { Producers = producers }, consumers, end, post)
                .RunAsync(PerProducer / producers, TestTimeouts.Default);
        }
    }
}
