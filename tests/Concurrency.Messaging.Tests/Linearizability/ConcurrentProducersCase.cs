namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>One multi-producer pipe configuration whose consumers run freely while several threads post.</summary>
/// <param name="Name">The name shown in the test list.</param>
/// <param name="Kind">The implementation.</param>
/// <param name="Options">Its options; every case declares several producers.</param>
/// <param name="Consumers">How many consumers (handlers).</param>
internal sealed record ConcurrentProducersCase(string Name, PipeKind Kind, PipeOptions Options, int Consumers)
{
    public bool Sharing => Consumers > 1 && Options.Distribution == PipeDistribution.WorkSharing;

    public override string ToString() => Name;
}
