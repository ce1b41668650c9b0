namespace Concurrency.Benchmarks.Backbone.Cli;

/// <summary>The root command's description, and the notes its <c>--help</c> prints before BenchmarkDotNet's own help.</summary>
public static class HelpText
{
    public const string Run = "Concurrency benchmarks: messages moved between threads through every path, each block verified. "
        + "With no command it runs benchmarks through BenchmarkDotNet: with no arguments the Headline scenario at 1 core and at all cores, "
        + "unattended (about 16 minutes on a quiet 2-core machine, up to 25 on a busy one), and exits non-zero if any benchmark failed "
        + "or nothing matched. Options it does not know go to BenchmarkDotNet (listed below). Each command says more with COMMAND --help.";


    public const string RunNotes = """
        Scenarios, chosen with BenchmarkDotNet's --filter:
          *Headline*  *Topology*  *Connector*  *OrderedParallel*  *CapacitySweep*
          *Runner*  (every queue on a dedicated thread and as thread-pool turns)
          *SequenceService*  (the seed's Ipseity sequence service, four ways)
          *ActorPingPong*  *ActorRing*   (our actors on each mailbox and receive; Akka.NET, Proto.Actor as peers)

        Exit codes: 0 done; 1 a benchmark failed, nothing matched, or the report refused; 2 bad arguments.

        """;
}
