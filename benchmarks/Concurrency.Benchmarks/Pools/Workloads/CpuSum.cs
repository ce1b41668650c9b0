namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>
/// The seed's CPU-bound workload: sum N integers. Split: each part sums a contiguous stride into a local, stores it once
/// (no shared counter in the loop), and the parts' sums are added.
/// </summary>
internal sealed class CpuSum : IWorkload
{
    private readonly int[] _numbers;
    private readonly long _expected;

    public CpuSum(int count)
    {
        _numbers = [.. Enumerable.Range(0, count).Select(i => i % 1000)];
        _expected = ((long)(count / 1000) * 499_500) + ((long)(count % 1000) * ((count % 1000) - 1) / 2);
    }

    public string Name => $"CPU-bound: sum {_numbers.Length:N0} integers";

    public string Seed => "1 core: 10–13% slower; 8 cores: 41–43% faster";

    public void RunSequential() => Check(Sum(_numbers));

    public void RunSplit(ILabWorkers workers, int parts)
    {
        var sums = new long[parts];
        var stride = _numbers.Length / parts;
        workers.RunAll([.. Enumerable.Range(0, parts).Select<int, Action>(p => () =>
        {
            var end = p == parts - 1 ? _numbers.Length : (p + 1) * stride;
            sums[p] = Sum(_numbers.AsSpan(p * stride, end - (p * stride)));
        })]);
        Check(sums.Sum());
    }

    private static long Sum(ReadOnlySpan<int> numbers)
    {
        long sum = 0;
        foreach (var n in numbers)
        {
            sum += n;
        }

        return sum;
    }

    private void Check(long sum)
    {
        if (sum != _expected)
        {
            throw new LabVerificationException($"{Name}: got {sum}, expected {_expected}.");
        }
    }
}
