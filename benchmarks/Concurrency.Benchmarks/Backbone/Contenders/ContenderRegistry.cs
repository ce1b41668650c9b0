namespace Concurrency.Benchmarks.Backbone.Contenders;

/// <summary>
/// A file that adds contenders to a game: a class with a parameterless constructor implementing this interface for the
/// game's build type is found by <see cref="ContenderRegistry{TBuild}"/> in this assembly, so adding one takes that file
/// and no edit anywhere else (see <c>Yours/LockedQueueContender.cs</c>).
/// </summary>
public interface IContenderSource<TBuild>
{
    IEnumerable<Contender<TBuild>> Contenders { get; }
}

/// <summary>
/// The contenders of one game, in the order the tables list them: the built-in ones, then those the assembly's
/// <see cref="IContenderSource{TBuild}"/> classes add (ordered by class name, so the order is the same in every process).
/// BenchmarkDotNet's parameters, the plain loop, the idle command and the head-to-heads all enumerate it.
/// </summary>
public sealed class ContenderRegistry<TBuild>
{
    private readonly Dictionary<string, Contender<TBuild>> _byName = new(StringComparer.Ordinal);

    /// <param name="game">The game's name, for error messages ("hand-off", "actors", ...).</param>
    /// <param name="builtIn">The game's own contenders.</param>
    /// <param name="discover">Whether to add the contenders of this assembly's <see cref="IContenderSource{TBuild}"/> classes.</param>
    /// <exception cref="ArgumentException">Two contenders share a name, or a name is blank.</exception>
    public ContenderRegistry(string game, IEnumerable<Contender<TBuild>> builtIn, bool discover = true)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(game);
        ArgumentNullException.ThrowIfNull(builtIn);
        Game = game;
        var all = new List<Contender<TBuild>>(builtIn);
        if (discover)
        {
            all.AddRange(Discover());
        }

        foreach (var contender in all)
        {
            ArgumentException.ThrowIfNullOrWhiteSpace(contender.Name, nameof(builtIn));
            if (!_byName.TryAdd(contender.Name, contender))
            {
                throw new ArgumentException($"The {game} game has two contenders named '{contender.Name}'.", nameof(builtIn));
            }
        }

        All = all;
    }

    /// <summary>Gets the game's name.</summary>
    public string Game { get; }

    /// <summary>Gets every contender, in table order.</summary>
    public IReadOnlyList<Contender<TBuild>> All { get; }

    /// <summary>Gets every contender's name, in table order (a BenchmarkDotNet [ParamsSource]).</summary>
    public IEnumerable<string> Names => All.Select(c => c.Name);

    /// <summary>The contender of that name.</summary>
    /// <exception cref="ArgumentException">The game has no contender of that name; the message lists those it has.</exception>
    public Contender<TBuild> this[string name]
        => TryFind(name, out var contender)
            ? contender
            : throw new ArgumentException($"The {Game} game has no contender '{name}'; it has: {string.Join(", ", Names)}.", nameof(name));

    public bool TryFind(string name, out Contender<TBuild> contender) => _byName.TryGetValue(name, out contender!);

    private static IEnumerable<Contender<TBuild>> Discover()
        => typeof(ContenderRegistry<TBuild>).Assembly.GetTypes()
            .Where(t => t is { IsClass: true, IsAbstract: false } && typeof(IContenderSource<TBuild>).IsAssignableFrom(t))
            .OrderBy(t => t.FullName, StringComparer.Ordinal)
            .SelectMany(t => ((IContenderSource<TBuild>)Activator.CreateInstance(t, nonPublic: true)!).Contenders);
}
