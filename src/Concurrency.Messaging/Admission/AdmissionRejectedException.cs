using System.Globalization;

namespace Concurrency.Messaging.Admission;

/// <summary>An entry found the admission gate at its limit of outstanding work items and was not admitted.</summary>
public sealed class AdmissionRejectedException : InvalidOperationException
{
    /// <summary>Creates the exception for a gate with <paramref name="outstanding"/> items outstanding at its <paramref name="limit"/>.</summary>
    public AdmissionRejectedException(int limit, int outstanding)
        : base(string.Create(CultureInfo.InvariantCulture, $"Too many outstanding work items: {outstanding} outstanding at the limit of {limit}; the item was not admitted."))
    {
        Limit = limit;
        Outstanding = outstanding;
    }

    /// <summary>Creates the exception with a default message.</summary>
    public AdmissionRejectedException()
        : base("Too many outstanding work items; the item was not admitted.")
    {
    }

    /// <summary>Creates the exception with a message and an inner exception.</summary>
    public AdmissionRejectedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Gets the gate's limit of outstanding work items; 0 when unknown.</summary>
    public int Limit { get; }

    /// <summary>Gets the outstanding count the rejected entry saw; 0 when unknown.</summary>
    public int Outstanding { get; }
}
