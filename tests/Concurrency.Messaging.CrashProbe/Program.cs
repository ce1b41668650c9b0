using Concurrency.Messaging.CrashProbe;

// A child process for the tests, for what no in-process test survives.
// Usage: Concurrency.Messaging.CrashProbe ring|rx            (dies of an observer's unhandled exception)
//        Concurrency.Messaging.CrashProbe log PATH POLICY COUNT   (appends COUNT entries to a file log, then is killed)
//        Concurrency.Messaging.CrashProbe open PATH               (opens the file log; exit 4 and the error when refused)
//        Concurrency.Messaging.CrashProbe failure-subscriber      (a Failures subscriber throws in a turn; exit 0 when the turn survived)
//        Concurrency.Messaging.CrashProbe queue-thread            (a dedicated consumer's queue throws; exit 0 when the pipe faulted)
return args switch
{
    ["log", var path, var policy, var count] => LogCrash.Run(path, Enum.Parse<Concurrency.Messaging.Logs.FileFlushPolicy>(policy), int.Parse(count, System.Globalization.CultureInfo.InvariantCulture)),
    ["open", var path] => LogCrash.Open(path),
    ["failure-subscriber"] => FailureSubscriberCrash.Run(),
    ["queue-thread"] => QueueThreadCrash.Run(),
    [var mode] => ObserverCrash.Run(mode),
    _ => throw new ArgumentException("Usage: Concurrency.Messaging.CrashProbe ring|rx | log PATH POLICY COUNT | open PATH | failure-subscriber | queue-thread"),
};
