namespace Concurrency.Messaging.Tests;

/// <summary>Bounds for every wait in the tests, so a bug fails fast instead of hanging CI.</summary>
internal static class TestTimeouts
{
    public static readonly TimeSpan Default = TimeSpan.FromSeconds(30);

    public static Task DefaultTimeout(this Task task)
        => task.WaitAsync(Default, TestContext.Current.CancellationToken);

    public static Task<T> DefaultTimeout<T>(this Task<T> task)
        => task.WaitAsync(Default, TestContext.Current.CancellationToken);

    /// <summary>
    /// Returns once <paramref name="condition"/> holds, polling it every few milliseconds: for a state that another thread
    /// reaches with nothing to await (a counter, a log line). Fails the test with <paramref name="because"/> if the condition
    /// does not hold within <see cref="Default"/>.
    /// </summary>
    public static Task WaitUntilAsync(Func<bool> condition, string because = "the condition never held")
        => WaitUntilAsync(() => ValueTask.FromResult(condition()), because);

    /// <inheritdoc cref="WaitUntilAsync(Func{bool}, string)"/>
    public static async Task WaitUntilAsync(Func<ValueTask<bool>> condition, string because = "the condition never held")
    {
        var deadline = DateTime.UtcNow + Default;
        while (!await condition())
        {
            Assert.True(DateTime.UtcNow < deadline, because);
            await Task.Delay(5, TestContext.Current.CancellationToken);
        }
    }
}
