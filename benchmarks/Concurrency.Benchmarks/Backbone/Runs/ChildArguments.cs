using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;

namespace Concurrency.Benchmarks.Backbone.Runs;

/// <summary>
/// A child's command line, made from its parent's parsed one in one place for every command: the same command, arguments
/// and options as the parent was given (a child resolves <c>--quick</c>'s sizes as its parent did), less those only the
/// parent reads (where it writes, how many launches), with the values this child is started for set
/// (<see cref="With{T}(Option{T}, T)"/>). The hidden <c>--result FILE</c> that makes it a child is added by
/// <see cref="BenchmarkProcess.RunForResult{TResult}"/>, never carried over.
/// </summary>
public sealed class ChildArguments
{
    private readonly IReadOnlyList<string> _command;

    // Each given option or argument with its tokens, in the order given; an option renders as its name and then them.
    private readonly IReadOnlyList<(Symbol Symbol, IReadOnlyList<string> Tokens)> _parts;

    private ChildArguments(IReadOnlyList<string> command, IReadOnlyList<(Symbol Symbol, IReadOnlyList<string> Tokens)> parts)
        => (_command, _parts) = (command, parts);

    /// <summary>
    /// The child line of the command <paramref name="parse"/> ran: its options and arguments as given (defaults left for
    /// the child to take), without <paramref name="parentOnly"/> and <c>--result</c>.
    /// </summary>
    public static ChildArguments Of(ParseResult parse, params Symbol[] parentOnly)
    {
        ArgumentNullException.ThrowIfNull(parse);
        ArgumentNullException.ThrowIfNull(parentOnly);
        var command = new List<string>();
        for (SymbolResult? at = parse.CommandResult; at is CommandResult { Command: not RootCommand } result; at = at.Parent)
        {
            command.Insert(0, result.Command.Name);
        }

        bool Kept(Symbol symbol) => symbol.Name != BenchmarkProcess.ResultOption && !parentOnly.Any(p => p.Name == symbol.Name);
        var parts = new List<(Symbol, IReadOnlyList<string>)>();
        foreach (var child in parse.CommandResult.Children)
        {
            switch (child)
            {
                case OptionResult { Implicit: false } option when Kept(option.Option):
                    parts.Add((option.Option, option.Tokens.Select(t => t.Value).ToArray()));
                    break;
                case ArgumentResult argument when Kept(argument.Argument) && argument.Tokens.Count > 0:
                    parts.Add((argument.Argument, argument.Tokens.Select(t => t.Value).ToArray()));
                    break;
            }
        }

        return new ChildArguments(command, parts);
    }

    /// <summary>A line of <paramref name="command"/> with nothing given yet, for a child started where no parent line was parsed.</summary>
    public static ChildArguments Bare(params string[] command) => new(command, []);

    /// <summary>
    /// This line with <paramref name="option"/> set to <paramref name="value"/> (replacing what was given): a number in
    /// the invariant culture as it round-trips, a flag given when true and left out when false, a list as one token each
    /// (a list of numbers as one "1,2" token), null left out.
    /// </summary>
    public ChildArguments With<T>(Option<T> option, T value) => Set(option, Tokens(value));

    /// <summary>This line with <paramref name="argument"/> set to <paramref name="value"/>, as <see cref="With{T}(Option{T}, T)"/>.</summary>
    public ChildArguments With<T>(Argument<T> argument, T value) => Set(argument, Tokens(value));

    /// <summary>The line as the program's arguments: the command, its arguments, then its options.</summary>
    public IReadOnlyList<string> ToList()
        => [.. _command, .. _parts.Where(p => p.Symbol is not Option).SelectMany(p => p.Tokens), .. _parts.SelectMany(p => p.Symbol is Option option ? [option.Name, .. p.Tokens] : Array.Empty<string>())];

    private ChildArguments Set(Symbol symbol, IReadOnlyList<string>? tokens)
    {
        ArgumentNullException.ThrowIfNull(symbol);
        var parts = _parts.ToList();
        var at = parts.FindIndex(p => p.Symbol.Name == symbol.Name);
        if (at >= 0)
        {
            parts.RemoveAt(at);
        }

        if (tokens is not null)
        {
            parts.Insert(at >= 0 ? at : parts.Count, (symbol, tokens));
        }

        return new ChildArguments(_command, parts);
    }

    // What the parser reads back as the value; null: the option is left out.
    private static IReadOnlyList<string>? Tokens(object? value) => value switch
    {
        null or false => null,
        true => [],
        string text => [text],
        IEnumerable<string> texts => [.. texts],
        IEnumerable<int> numbers => [string.Join(',', numbers.Select(n => n.ToString(CultureInfo.InvariantCulture)))],
        IFormattable formattable => [formattable.ToString(null, CultureInfo.InvariantCulture)],
        _ => [value.ToString() ?? string.Empty],
    };
}
