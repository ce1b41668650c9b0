namespace Concurrency.Messaging.Tests.Regressions;

/// <summary>
/// The runtime-channel regression tests run alone, one at a time: they keep every core busy on purpose, and their raw
/// measurements mean more when no unrelated test competes for the cores (nor is slowed down by them).
/// </summary>
[CollectionDefinition(nameof(RuntimeChannelRegressions), DisableParallelization = true)]
public sealed class RuntimeChannelRegressions;
