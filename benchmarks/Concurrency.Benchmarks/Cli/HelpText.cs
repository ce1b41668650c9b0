namespace Concurrency.Benchmarks.Cli;

/// <summary>What <c>--help</c> prints before BenchmarkDotNet's own help, and <c>report --help</c> prints alone.</summary>
public static class HelpText
{
    public const string Run = """
        Concurrency benchmarks: messages moved between threads through every path, each block verified.

        Usage:
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks [-- OPTIONS] [BENCHMARKDOTNET OPTIONS]
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- report [REPORT OPTIONS]
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- idle [--seconds N] [--out DIR]
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- loop [--messages N] [--runs N] [--launches N] [--out DIR]
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- footprint [--actors N] [--runs N] [--out DIR]
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- lab [NAME...] [--cores LIST] [--launches N] [--gc MODE] [--quick] [--out DIR]
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- lab --list
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- serve [SERVE OPTIONS]

        With no arguments it runs the Headline scenario at 1 core and at all cores, unattended (about
        16 minutes on a quiet 2-core machine, up to 25 on a busy one), and exits non-zero if any
        benchmark failed or nothing matched.

        Options:
          --cores LIST           core counts to run at, one job each, e.g. --cores 1,2,4
                                 (default: 1 and all; capped at this machine's count)
          --job, -j NAME         measurement settings for every core count: default (steady state,
                                 4 launches x 15 iterations of ~250 ms, 6 warm-up), dry (one quick
                                 pass, to check a change), short, medium, long
          --help, -h             this help, then BenchmarkDotNet's

        Scenarios, chosen with BenchmarkDotNet's --filter:
          *Headline*  *Topology*  *Connector*  *OrderedParallel*  *CapacitySweep*
          *Runner*  (every queue on a dedicated thread and as thread-pool turns)
          *SequenceService*  (the seed's Ipseity sequence service, four ways)
          *ActorPingPong*  *ActorRing*   (our actors on both mailboxes; Akka.NET and Proto.Actor as peers)

        Report options (after "report"):
          --results DIR          BenchmarkDotNet's results (default: BenchmarkDotNet.Artifacts/results)
          --out DIR              where REPORT.md, README-table.md and the charts go (default: results)
          --allow-mixed-commits  merge results measured at different commits (REPORT.md says so)

        Loop command: the headline contenders as a plain loop outside BenchmarkDotNet: one producer
        posts N messages (default 10,000,000) in one loop; warm-up runs until the runtime has settled
        on its code (at least 3 s, and a run that compiled no method), then the median of --runs
        (default 5). Each of --launches (default 3) is a fresh process; the table gives the median of
        the launches with the lowest and highest. Then Ring and ObserveOnRing of capacity 16 and 64
        beside their default capacity; on one core each with its ceiling, capacity ÷ (2 × the time
        one thread takes to hand the core to another). Last, the speed goals head to head: the paths
        they compare, and RawRing, back to back in 14 rounds of a balanced order, each goal's ratio
        taken within each round. Prefix taskset -c 0 for one core. Writes LOOP-<cores>.md.

        Idle command: what an idle consumer costs. Builds 1 and 100 of each pipe, operator and peer,
        hands each one message, then reads process CPU time over 3 windows of N seconds (default 2)
        and writes IDLE.md (default folder: results).

        Footprint command: what an idle actor costs, for our actors and the peers, each in a process of
        its own, --runs times (default 3): the managed heap per actor of N actors (default 100,000) that
        never got a message, and the process's threads once 10,000 actors each handled one. Writes
        FOOTPRINT.md.

        Lab command: the workload lab (when concurrency pays, log appends under threads, the elastic
        worker pool, admission control, gRPC streaming peers); "lab --help" says more.

        Serve command: the peers the gRPC experiment measures against, for running on another machine;
        "serve --help" says more.

        Exit codes: 0 done; 1 a benchmark failed, nothing matched, or the report refused; 2 bad arguments.

        """;

    public const string Lab = """
        Workload lab: experiments that ask when concurrency pays, each beside the seed's figures.

        Usage:
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- lab [NAME...] [OPTIONS]
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- lab --list

        With no NAME it runs every experiment. Each experiment runs in a process of its own, pinned to
        each core count in turn (or once on all cores, for those that sweep threads instead), one at a
        time, with a progress bar; it verifies what it did and the lab exits 1 if any run failed.
        Writes NAME.md per experiment, its charts, and LAB.md (all sections present) into the folder.

        Options:
          --cores LIST   core counts for the per-core experiments (default: 1 and all)
          --launches N   run each experiment N times, a fresh process each (1 to 20, default 1), and
                         publish the median of the launches with the lowest and highest
          --gc MODE      the garbage collector of the experiments' processes (and of the gRPC peer
                         process they start): workstation (the program's setting, default) or server
          --quick        smoke-test sizes, one repetition: to check a change, not to publish
          --out DIR      where the sections, charts and LAB.md go (default: results/lab)
          --list         the experiments, one per line
          --help, -h     this help

        Peers on another machine, for the grpc experiment (start them there with "serve"):
          --server URL             our peer server, e.g. --server http://10.0.0.2:5000
          --proto-remote HOST:PORT the Proto.Remote echo peer, e.g. --proto-remote 10.0.0.2:5001
          --in-process             host both peers in the lab's own process on loopback: a smoke
                                   option (no peer process, no restart run), not for publishing
        Without them the experiment starts its own peers in a process of its own on loopback.

        """;

    public const string Serve = """
        Serve: the peers the gRPC experiment (lab grpc) measures against, our PeerServer echoing and a
        Proto.Remote echo actor. Prints "peer URL", "proto-remote HOST:PORT" and "ready", then serves
        until standard input closes or Ctrl+C.

        Usage:
          dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- serve [OPTIONS]

        Options:
          --urls URL               where our peer listens (default http://127.0.0.1:0, a free port);
                                   for other machines e.g. --urls http://0.0.0.0:5000
          --proto-remote-port N    the Proto.Remote peer's port, on the host of the first URL (default 0)
          --token T                ask every client for this bearer token
          --help, -h               this help

        On the client machine: lab grpc --server http://HOST:5000 --proto-remote HOST:PORT

        """;
}
