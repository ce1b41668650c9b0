namespace Concurrency.Messaging.Tests.Races;

/// <summary>How the racing producers post.</summary>
public enum RacePost
{
    /// <summary><c>TryPost</c>, retried on <see langword="false"/> until the pipe closes: a refused post must have delivered to nobody.</summary>
    TryPost,

    /// <summary><c>PostAsync</c> with a token cancelled after a random short wait, retried: a cancelled post must have delivered to nobody.</summary>
    CancelledPostAsync,
}
