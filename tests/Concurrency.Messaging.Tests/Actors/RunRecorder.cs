namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// An aggregating actor that records every run it is handed. A message's key is its first character; the message
/// <see cref="Hold"/> holds the actor at a <see cref="HandlerGate"/> (and is not recorded), so a test can queue a backlog
/// that the next turn finds all at once. An Ask is answered with the length of its run. <paramref name="recorded"/>, if
/// given, is released once per recorded run.
/// </summary>
internal sealed class RunRecorder(HandlerGate gate, List<(char Key, string[] Messages)> runs, SemaphoreSlim? recorded = null)
    : AggregatingActor<string, char>
{
    public const string Hold = "!";

    protected override char KeyOf(string message) => message[0];

    protected override void ReceiveRun(char key, ReadOnlySpan<string> run)
    {
        if (run is [Hold])
        {
            gate.Hold();
            return;
        }

        runs.Add((key, run.ToArray()));
        if (Context.HasPendingReply)
        {
            Context.Reply(run.Length);
        }

        recorded?.Release();
    }
}
