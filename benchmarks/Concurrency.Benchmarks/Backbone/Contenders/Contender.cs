namespace Concurrency.Benchmarks.Backbone.Contenders;

/// <summary>
/// One contender of one game, as every command that measures the game enumerates it: its stable name (the name in tables,
/// result files and BenchmarkDotNet's parameter), whose it is, and how to build it. <typeparamref name="TBuild"/> is the
/// game's way to build one (a path factory for the hand-off, an actor system factory for the actors, ...).
/// </summary>
/// <param name="Name">The stable name; results are keyed by it, so renaming a contender orphans its results.</param>
/// <param name="Family">Whose it is: ours, a peer's, a baseline, a ceiling or a user's.</param>
/// <param name="Build">How the game builds it.</param>
public sealed record Contender<TBuild>(string Name, ContenderFamily Family, TBuild Build)
{
    /// <summary>Gets one line on what it is, for the tables' notes (for a log: what an append that returned survives).</summary>
    public string Note { get; init; } = string.Empty;

    /// <summary>Gets whether it is another library's way of doing the same thing, which ours is measured against.</summary>
    public bool IsPeer => Family is ContenderFamily.Rx or ContenderFamily.Dataflow or ContenderFamily.ActorSystem or ContenderFamily.Peer;

    /// <summary>Gets whether it is this library's.</summary>
    public bool IsOurs => Family == ContenderFamily.Ours;

    public override string ToString() => Name;
}
