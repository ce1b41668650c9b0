
namespace Concurrency.Benchmarks.Actors;

/// <summary>An actor system as the footprint command sees it: many small actors, each counting the messages it gets.</summary>
internal interface IFootprintContender : IDisposable
{
    /// <summary>Creates <paramref name="count"/> actors; each calls <paramref name="received"/> for every message it handles. Returns once they exist.</summary>
    void Spawn(int count, Action received);

    /// <summary>Sends one message to each actor <see cref="Spawn"/> created.</summary>
    void TellEach();
}
