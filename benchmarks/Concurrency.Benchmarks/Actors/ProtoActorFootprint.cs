using Proto;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Proto.Actor for the footprint command: default dispatcher and mailbox, one Props for all actors.</summary>
internal sealed class ProtoActorFootprint : IFootprintContender
{
    private readonly ActorSystem _system = new();
    private PID[] _actors = [];

    public void Spawn(int count, Action received)
    {
        var props = Props.FromFunc(context =>
        {
            if (context.Message is int)
            {
                received();
            }

            return Task.CompletedTask;
        });
        _actors = new PID[count];
        for (var i = 0; i < count; i++)
        {
            _actors[i] = _system.Root.Spawn(props);
        }
    }

    public void TellEach()
    {
        foreach (var actor in _actors)
        {
            _system.Root.Send(actor, 1);
        }
    }

    public void Dispose() => _system.ShutdownAsync().Wait(TimeSpan.FromSeconds(10));
}
