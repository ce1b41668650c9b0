using System.Text.RegularExpressions;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// The documentation against the repository, so that it cannot drift from the code unseen: every code block under a
/// <c>&lt;!-- snippet: NAME --&gt;</c> line is, verbatim, the region <c>#region README: NAME</c> (or <c>package: NAME</c>)
/// of the sample program, which CI runs; every relative link in the README, results/README.md and docs/ names a file
/// or folder that exists; the packages' READMEs (shown on a feed, away from the repository) have no relative link.
/// </summary>
public sealed partial class DocumentationTests
{
    private static readonly DirectoryInfo Root = FindRoot();

    public static TheoryData<string> Pages() =>
    [
        "README.md",
        "results/README.md",
        .. Directory.GetFiles(Path.Combine(Root.FullName, "docs"), "*.md").Order(StringComparer.Ordinal).Select(Relative),
        .. PackageReadmes(),
    ];

    [Theory]
    [MemberData(nameof(Pages))]
    public void Page_EverySnippetIsTheSamplesRegion(string page)
    {
        var text = Read(page);
        var regions = Regions();

        var snippets = Snippet().Matches(text);

        Assert.Equal(Markers().Count(text), snippets.Count); // a marker must be followed by a csharp block
        Assert.All(snippets, s =>
        {
            Assert.True(regions.TryGetValue(s.Groups["name"].Value, out var region), $"{page}: snippet '{s.Groups["name"].Value}' has no region in the sample");
            Assert.Equal(region, s.Groups["code"].Value);
        });
    }

    [Theory]
    [MemberData(nameof(Pages))]
    public void Page_EveryRelativeLinkNamesAFile_AndAPackagesReadmeHasNone(string page)
    {
        var links = Links(Read(page)).Where(l => !Absolute().IsMatch(l) && !l.StartsWith('#')).ToList();

        if (PackageReadmes().Contains(page))
        {
            Assert.Empty(links);
            return;
        }

        var folder = Path.GetDirectoryName(Path.Combine(Root.FullName, page))!;
        Assert.All(links, link => Assert.True(Path.Exists(Path.Combine(folder, link.Split('#')[0])), $"{page}: link '{link}' names nothing"));
    }

    [Fact]
    public void Readme_HasTheDecisionTablesMarkedBlock()
    {
        var readme = Read("README.md");

        Assert.Equal(1, Regex.Count(readme, Regex.Escape(Backbone.Reporting.DecisionTable.Start)));
        Assert.True(readme.IndexOf(Backbone.Reporting.DecisionTable.Start, StringComparison.Ordinal) < readme.IndexOf(Backbone.Reporting.DecisionTable.End, StringComparison.Ordinal));
    }

    [Fact]
    public void Readme_StaysUnderItsLineBudget_ForANewcomerToReadThrough()
    {
        // Details go to docs/; the README keeps what a newcomer needs first. New rows and sections fit under the budget.
        var lines = Read("README.md").Split('\n').Length;

        Assert.True(lines < 250, $"README.md has {lines} lines; the budget is under 250: move detail to docs/.");
    }

    private static IEnumerable<string> PackageReadmes()
        => Directory.GetDirectories(Path.Combine(Root.FullName, "src"))
            .Select(d => Path.Combine(d, "README.md"))
            .Where(File.Exists)
            .Order(StringComparer.Ordinal)
            .Select(Relative);

    private static Dictionary<string, string> Regions()
        => Region().Matches(Read("samples/Concurrency.Samples/Program.cs")).ToDictionary(m => m.Groups["name"].Value, m => m.Groups["code"].Value);

    /// <summary>Links outside code: [text](target) and src="target".</summary>
    private static IEnumerable<string> Links(string text)
    {
        var prose = InlineCode().Replace(CodeBlock().Replace(text, string.Empty), string.Empty);
        return MarkdownLink().Matches(prose).Select(m => m.Groups[1].Value).Concat(ImageSource().Matches(prose).Select(m => m.Groups[1].Value));
    }

    private static string Read(string relative) => File.ReadAllText(Path.Combine(Root.FullName, relative)).ReplaceLineEndings("\n");

    private static string Relative(string path) => Path.GetRelativePath(Root.FullName, path).Replace('\\', '/');

    private static DirectoryInfo FindRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Concurrency.sln")))
            {
                return directory;
            }
        }

        throw new InvalidOperationException("The tests run outside the repository: no Concurrency.sln above their folder.");
    }

    [GeneratedRegex(@"^#region (?:README|package): (?<name>.+?)\n(?<code>.*?)^#endregion\n", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex Region();

    [GeneratedRegex(@"^<!-- snippet: (?<name>.+?) -->\n```csharp\n(?<code>.*?)^```\n", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex Snippet();

    [GeneratedRegex(@"^<!-- snippet: ", RegexOptions.Multiline)]
    private static partial Regex Markers();

    [GeneratedRegex(@"^```.*?^```\n", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex CodeBlock();

    [GeneratedRegex(@"`[^`\n]*`")]
    private static partial Regex InlineCode();

    [GeneratedRegex(@"\]\(([^)\s]+)\)")]
    private static partial Regex MarkdownLink();

    [GeneratedRegex("src=\"([^\"]+)\"")]
    private static partial Regex ImageSource();

    [GeneratedRegex("^[a-z]+:")]
    private static partial Regex Absolute();
}
