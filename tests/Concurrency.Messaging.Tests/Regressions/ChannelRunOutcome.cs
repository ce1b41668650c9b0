namespace Concurrency.Messaging.Tests.Regressions;

/// <summary>What a raw runtime channel pattern did with the items written to it: every item is read, lost or duplicated.</summary>
internal sealed record ChannelRunOutcome(long Written, long Read, long Duplicated, long LeftInChannel, string? Failure)
{
    public long Lost => Written - (Read - Duplicated) - LeftInChannel;

    public override string ToString()
        => $"written {Written:N0}, read {Read:N0}, duplicated {Duplicated}, left in channel {LeftInChannel}, lost {Lost}"
           + (Failure is null ? string.Empty : $", failure: {Failure}");
}
