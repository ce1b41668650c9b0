
namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// The one message the actor games move: a number (a ping's sequence number, a ring token's number). Runs reuse
/// preallocated tokens, so on our side no contender allocates per message; a token is immutable, so the same one may sit
/// in several mailboxes at once (every pair sends token k as its k-th ping) and any thread may read it.
/// </summary>
internal sealed class Token(long number)
{
    private static Token[] s_shared = []; // the process's tokens, grown (never shrunk) by Shared; any thread

    public long Number { get; } = number;

    /// <summary>
    /// The process's tokens numbered 1 to at least <paramref name="count"/>, allocated once and shared by every contender
    /// and run: a run that numbers its own tokens would time the allocation of up to a million objects, and the garbage
    /// collections that promote them, as if they were the actors' work.
    /// </summary>
    /// <remarks>Two threads that grow it at once each get an array that is long enough; the last one written stays.</remarks>
    public static Token[] Shared(long count)
    {
        var tokens = Volatile.Read(ref s_shared);
        if (tokens.Length < count)
        {
            tokens = Numbered(count);
            Volatile.Write(ref s_shared, tokens);
        }

        return tokens;
    }

    /// <summary>Tokens numbered 1 to <paramref name="count"/>, token k at index k − 1.</summary>
    public static Token[] Numbered(long count)
    {
        var tokens = new Token[checked((int)count)];
        for (var i = 0; i < tokens.Length; i++)
        {
            tokens[i] = new Token(i + 1);
        }

        return tokens;
    }
}
