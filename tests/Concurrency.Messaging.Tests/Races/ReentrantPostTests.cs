using System.Reactive.Subjects;

namespace Concurrency.Messaging.Tests.Races;

/// <summary>
/// A handler that posts into its own full pipe would wait for itself to make room, forever. It must get a clear error
/// instead; a TryPost (which never waits) and a PostAsync (which does not block the handler) stay allowed.
/// </summary>
public sealed class ReentrantPostTests
{
    public static TheoryData<string> BoundedKinds() =>
    [
        "Ring-16", "Channel-16", "BlockingCollection-16", "Channel-16-broadcast", "BlockingCollection-16-broadcast", "Ring-16-broadcast",
        "Ring-16@pool", "Channel-16@thread", "BlockingCollection-16@pool", "Ring-16@pool-broadcast",
    ];

    [Theory]
    [MemberData(nameof(BoundedKinds))]
    public async Task Post_FromOwnHandlerWhileFull_ThrowsInsteadOfWaitingForever(string name)
    {
        var broadcast = name.EndsWith("-broadcast", StringComparison.Ordinal);
        var (kind, options) = RaceKinds.Parse(broadcast ? name[..^"-broadcast".Length] : name);
        var outcome = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
        IPipe<long>? pipe = null;
        void Handle(long message)
        {
            if (message != 0)
            {
                return;
            }

            try
            {
                for (var i = 1; i <= 64; i++)
                {
                    pipe!.Post(i, TestContext.Current.CancellationToken);
                }

                outcome.TrySetResult(null);
            }
            catch (Exception ex)
            {
                outcome.TrySetResult(ex);
            }
        }

        pipe = Pipe.Create<long>(kind, broadcast ? [Handle, _ => { }] : [Handle], options);
        await using (pipe)
        {
            pipe.Post(0, TestContext.Current.CancellationToken);
            var error = await outcome.Task.DefaultTimeout();

            var refused = Assert.IsType<InvalidOperationException>(error);
            Assert.Contains("its own pipe", refused.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("Ring")]
    [InlineData("Channel")]
    public async Task Operator_ObserverCallsItsOwnSourceWhileFull_OnErrorInsteadOfHanging(string name)
    {
        using var subject = new Subject<int>();
        var error = new TaskCompletionSource<Exception>(TaskCreationOptions.RunContinuationsAsynchronously);
        var bounded = name == "Ring" ? subject.ObserveOnRing(16) : subject.ObserveOnChannel(16);
        using var subscription = bounded.Subscribe(
            value =>
            {
                if (value == 0)
                {
                    for (var i = 1; i <= 64; i++)
                    {
                        subject.OnNext(i);
                    }
                }
            },
            e => error.TrySetResult(e),
            () => error.TrySetException(new InvalidOperationException("completed instead of failing")));

        subject.OnNext(0);

        var failure = Assert.IsType<InvalidOperationException>(await error.Task.DefaultTimeout());
        Assert.Contains("its own pipe", failure.Message, StringComparison.Ordinal);
    }
}
