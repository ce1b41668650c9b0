namespace Concurrency.Messaging.Tests;

/// <summary>
/// The tests that read the library's own instruments (pipes, actors, pools, gates): those are process-wide and carry no
/// tag that tells one pipe or pool from another, so these tests run alone, after the tests that run in parallel, and
/// check that each instrument moved by exactly what the test did, never by another test's traffic.
/// </summary>
[CollectionDefinition(nameof(LibraryInstruments), DisableParallelization = true)]
public sealed class LibraryInstruments;
