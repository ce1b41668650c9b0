namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>BlockingCollection under the pooled runner.</summary>
public sealed class ThreadPoolBlockingCollectionPipeTests : PipeContractTests
{
    protected override PipeKind Kind => PipeKind.BlockingCollection;

    protected override PipeOptions BaseOptions => new() { Runner = PipeRunner.ThreadPool };
}
