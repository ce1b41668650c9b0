
namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>Thrown by an experiment whose work did not check out (a count or checksum mismatch); the lab exits non-zero.</summary>
public sealed class LabVerificationException(string message) : Exception(message);
