
namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>Orders "Capacity=16" before "Capacity=256": runs of digits compare as numbers, the rest ordinally.</summary>
public sealed class NaturalOrder : IComparer<string>
{
    public static readonly NaturalOrder Instance = new();

    public int Compare(string? x, string? y)
    {
        if (x is null || y is null)
        {
            return x is null ? (y is null ? 0 : -1) : 1;
        }

        int i = 0, j = 0;
        while (i < x.Length && j < y.Length)
        {
            if (char.IsAsciiDigit(x[i]) && char.IsAsciiDigit(y[j]))
            {
                var (a, nextI) = Number(x, i);
                var (b, nextJ) = Number(y, j);
                if (a != b)
                {
                    return a.CompareTo(b);
                }

                (i, j) = (nextI, nextJ);
                continue;
            }

            if (x[i] != y[j])
            {
                return x[i].CompareTo(y[j]);
            }

            (i, j) = (i + 1, j + 1);
        }

        return (x.Length - i).CompareTo(y.Length - j);
    }

    private static (decimal Value, int End) Number(string text, int start)
    {
        var end = start;
        while (end < text.Length && char.IsAsciiDigit(text[end]))
        {
            end++;
        }

        return (decimal.Parse(text.AsSpan(start, Math.Min(end - start, 28)), System.Globalization.CultureInfo.InvariantCulture), end);
    }
}
