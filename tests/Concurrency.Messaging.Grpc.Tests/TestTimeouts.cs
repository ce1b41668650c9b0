using Xunit;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>Bounds for every wait in the tests, so a bug fails fast instead of hanging CI.</summary>
internal static class TestTimeouts
{
    public static readonly TimeSpan Default = TimeSpan.FromSeconds(30);

    public static Task DefaultTimeout(this Task task)
        => task.WaitAsync(Default, TestContext.Current.CancellationToken);

    public static Task<T> DefaultTimeout<T>(this Task<T> task)
        => task.WaitAsync(Default, TestContext.Current.CancellationToken);
}
