namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// An event actor with one handler per event type: "add" adds the value, "increment" (a run handler) adds one per event
/// and records each run's length, "total" and "increment-runs" reply with what was gathered, "hold" waits at the gate.
/// </summary>
internal sealed class TallyActor : EventActor<int>
{
    private readonly List<int> _incrementRuns = []; // the actor's state: touched only by its handlers
    private int _total;                             // likewise

    public TallyActor(HandlerGate? gate = null)
    {
        On("add", e => _total += e.Value);
        OnRun("increment", run =>
        {
            _incrementRuns.Add(run.Length);
            _total += run.Length;
        });
        On("total", _ => Context.Reply(_total));
        On("increment-runs", _ => Context.Reply(_incrementRuns.ToArray()));
        On("hold", _ => gate?.Hold());
    }
}
