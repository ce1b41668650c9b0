namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>What one launch (a fresh process) of the latency command measured: the clock's cost, the loaded runs, the idle ones.</summary>
/// <param name="TimestampNanoseconds">What one timestamp cost in this process (<see cref="TimestampCost"/>).</param>
public sealed record LatencyLaunch(double TimestampNanoseconds, IReadOnlyList<ScenarioLatency> Loaded, IReadOnlyList<IdleLatency> Idle);

/// <summary>One target in one scenario: its own maximum in the paced shape, and its latencies at each load offered.</summary>
/// <param name="Scenario">The scenario ("latency hand-off", "latency actor told", ...).</param>
/// <param name="MaxRate">Messages per second with every message due at once, the median of the plan's runs.</param>
public sealed record ScenarioLatency(string Scenario, string Contender, ContenderFamily Family, double MaxRate, IReadOnlyList<LoadLatency> Loads);

/// <summary>The latencies at one load.</summary>
/// <param name="Load">"50%" (of the target's maximum) or "10,000 msg/s".</param>
/// <param name="Rate">The rate offered, in messages per second.</param>
public sealed record LoadLatency(string Load, double Rate, LatencyDistribution Latency);

/// <summary>Idle-to-first-message: each time the target sat idle and was then handed one message, how long until it was handled.</summary>
/// <param name="Microseconds">One value per time, in µs.</param>
public sealed record IdleLatency(string Scenario, string Contender, ContenderFamily Family, IReadOnlyList<double> Microseconds);
