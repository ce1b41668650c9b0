using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>A logger provider that keeps every record at every level, for tests that read what the server logged.</summary>
internal sealed class RecordingLoggerProvider : ILoggerProvider
{
    public ConcurrentQueue<(LogLevel Level, string Category, string Message)> Records { get; } = new();

    public ILogger CreateLogger(string categoryName) => new Recorder(this, categoryName);

    public void Dispose()
    {
    }

    private sealed class Recorder(RecordingLoggerProvider provider, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
            => provider.Records.Enqueue((logLevel, category, formatter(state, exception)));
    }
}
