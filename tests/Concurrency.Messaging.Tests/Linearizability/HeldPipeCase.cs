namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>One pipe configuration under test, and how much room it has left once every consumer is held.</summary>
/// <param name="Name">The name shown in the test list.</param>
/// <param name="Kind">The implementation.</param>
/// <param name="Options">Its options; multi-producer pipes declare several producers.</param>
/// <param name="Consumers">How many consumers (handlers).</param>
/// <param name="RoomWhileHeld">How many posts fit while each consumer holds one message in its handler; <see langword="null"/> if unbounded.</param>
/// <param name="SerializeProducers">Whether posts must be serialized (a ring promises one producer): posts then still race completion and the consumers.</param>
internal sealed record HeldPipeCase(
    string Name, PipeKind Kind, PipeOptions Options, int Consumers, int? RoomWhileHeld, bool SerializeProducers = false)
{
    public bool Sharing => Consumers > 1 && Options.Distribution == PipeDistribution.WorkSharing;

    public override string ToString() => Name;
}
