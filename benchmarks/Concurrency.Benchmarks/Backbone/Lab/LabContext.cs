namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// What an experiment is given: the cores its process is pinned to, whether to run quick (a small smoke run for tests and
/// for checking a change, not for publishing), a progress callback, a token that stops it, and, in a child an experiment
/// started for one of its contenders, that contender's name.
/// </summary>
public sealed class LabContext(int cores, bool quick, Action<double, string>? progress = null, LabPeers? peers = null, string? contender = null, ChildArguments? line = null, bool kill = false, CancellationToken cancellation = default)
{
    /// <summary>Gets the number of cores this process may run on.</summary>
    public int Cores { get; } = cores;

    /// <summary>Gets whether this is a quick smoke run: small sizes, one repetition; its numbers are not for publishing.</summary>
    public bool Quick { get; } = quick;

    /// <summary>Gets the peers on other machines that network experiments aim at (none: they start their own on loopback).</summary>
    public LabPeers Peers { get; } = peers ?? LabPeers.None;

    /// <summary>
    /// Gets the contender this process runs alone, when the experiment started it as a fresh process for that contender
    /// (<see cref="LabChild.Start"/>); <see langword="null"/> in the experiment's own process.
    /// </summary>
    public string? Contender { get; } = contender;

    /// <summary>
    /// Gets the command line a child this experiment starts builds on (<see cref="LabChild.Start"/>): this process's own,
    /// or a bare <c>lab</c> where the experiment runs in a process the lab's command line did not start (a test's).
    /// </summary>
    public ChildArguments Line { get; } = line ?? ChildArguments.Bare("lab");

    /// <summary>Gets whether <c>--kill</c> was given: an experiment that has a crash trial runs it instead of its speed rounds.</summary>
    public bool Kill { get; } = kill;

    /// <summary>Gets the token that stops the experiment.</summary>
    public CancellationToken Cancellation { get; } = cancellation;

    /// <summary>Says how far the experiment is (0 to 1) and what it is doing; shown as a progress bar by the parent.</summary>
    public void Report(double fraction, string step) => progress?.Invoke(Math.Clamp(fraction, 0, 1), step);
}
