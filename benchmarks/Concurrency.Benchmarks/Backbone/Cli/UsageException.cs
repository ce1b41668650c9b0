
namespace Concurrency.Benchmarks.Backbone.Cli;

/// <summary>A bad command line: its message is the one line printed to stderr before exiting with <see cref="ExitCode"/>.</summary>
public sealed class UsageException(string message) : Exception(message)
{
    public const int ExitCode = 2;
}
