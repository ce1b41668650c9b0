namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>
/// The seed's workload that does not parallelize: bubble sort (with the seed's early exit when a sweep swaps nothing).
/// Split, each part bubble-sorts a contiguous chunk, then the chunks are combined: the seed's way, by bubble-sorting the
/// whole array again (<see cref="MergeBySort"/> false), or by a k-way merge (true), which changes the algorithm and so
/// its cost even on one thread.
/// </summary>
internal sealed class BubbleSort : IWorkload
{
    private readonly int[] _input;
    private readonly int[] _sorted;

    public BubbleSort(int count, bool mergeBySort)
    {
        _input = [.. Enumerable.Range(0, count).Select(i => (int)((uint)(i * 2_654_435_761L) % 1_000_000))];
        _sorted = [.. _input.Order()];
        MergeBySort = mergeBySort;
    }

    public bool MergeBySort { get; }

    public string Name => MergeBySort
        ? $"Bubble sort {_input.Length:N0} integers, chunks merged (k-way merge)"
        : $"Bubble sort {_input.Length:N0} integers, chunks then the whole bubble-sorted (the seed's split)";

    public string Seed => MergeBySort ? "not in the seed" : "no gain from concurrency";

    public void RunSequential()
    {
        var numbers = (int[])_input.Clone();
        Sort(numbers);
        Check(numbers);
    }

    public void RunSplit(ILabWorkers workers, int parts)
    {
        var numbers = (int[])_input.Clone();
        var stride = numbers.Length / parts;
        int End(int p) => p == parts - 1 ? numbers.Length : (p + 1) * stride;
        workers.RunAll([.. Enumerable.Range(0, parts).Select<int, Action>(p => () => Sort(numbers.AsSpan(p * stride, End(p) - (p * stride))))]);
        if (MergeBySort)
        {
            Check(Merge(numbers, [.. Enumerable.Range(0, parts).Select(p => (Start: p * stride, End: End(p)))]));
        }
        else
        {
            Sort(numbers);
            Check(numbers);
        }
    }

    private static void Sort(Span<int> numbers)
    {
        for (var pass = 0; pass < numbers.Length; pass++)
        {
            var swapped = false;
            for (var i = 0; i + 1 < numbers.Length - pass; i++)
            {
                if (numbers[i] > numbers[i + 1])
                {
                    (numbers[i], numbers[i + 1]) = (numbers[i + 1], numbers[i]);
                    swapped = true;
                }
            }

            if (!swapped)
            {
                return;
            }
        }
    }

    /// <summary>Merges sorted runs by taking the smallest head each time (k is small: a linear scan of the heads).</summary>
    private static int[] Merge(int[] numbers, (int Start, int End)[] runs)
    {
        var merged = new int[numbers.Length];
        var heads = runs.Select(r => r.Start).ToArray();
        for (var i = 0; i < merged.Length; i++)
        {
            var best = -1;
            for (var r = 0; r < runs.Length; r++)
            {
                if (heads[r] < runs[r].End && (best < 0 || numbers[heads[r]] < numbers[heads[best]]))
                {
                    best = r;
                }
            }

            merged[i] = numbers[heads[best]++];
        }

        return merged;
    }

    private void Check(int[] numbers)
    {
        if (!numbers.AsSpan().SequenceEqual(_sorted))
        {
            throw new LabVerificationException($"{Name}: the result is not the input sorted.");
        }
    }
}
