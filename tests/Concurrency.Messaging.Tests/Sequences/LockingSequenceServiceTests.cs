namespace Concurrency.Messaging.Tests.Sequences;

/// <summary>The contract for the kinds that serialize with a lock or a mutex, plus their promise: an uncontended request completes synchronously, without allocating.</summary>
public abstract class LockingSequenceServiceTests : SequenceServiceContractTests
{
    [Fact]
    public void Requests_Uncontended_CompleteSynchronouslyWithoutAllocating()
    {
        var service = Create();
        for (var i = 0; i < 100; i++)
        {
            // Warm up: the first calls may allocate for one-time setup.
            TakeCompleted(service.NextAsync(Token));
            TakeCompleted(service.UpdateAsync(i, Token));
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        var allSynchronous = true;
        for (var i = 0; i < 1_000; i++)
        {
            allSynchronous &= TakeCompleted(service.NextAsync(Token));
            allSynchronous &= TakeCompleted(service.UpdateAsync(i, Token));
        }

        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.True(allSynchronous);
        Assert.Equal(0, allocated);
    }

    /// <summary>Consumes a request that should have completed synchronously; returns whether it had.</summary>
    private static bool TakeCompleted(ValueTask<long> request)
    {
        if (!request.IsCompletedSuccessfully)
        {
            _ = request.AsTask(); // consumed; the test fails on the returned false
            return false;
        }

        _ = request.Result;
        return true;
    }

    private static bool TakeCompleted(ValueTask request)
    {
        if (!request.IsCompletedSuccessfully)
        {
            _ = request.AsTask();
            return false;
        }

        request.GetAwaiter().GetResult();
        return true;
    }
}
