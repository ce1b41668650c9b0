namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// The one message the actor games move: a number (a ping's sequence number, a ring token's number). Runs reuse
/// preallocated tokens, so on our side no contender allocates per message; a token is immutable, so the same one may sit
/// in several mailboxes at once (every pair sends token k as its k-th ping) and any thread may read it.
/// </summary>
internal sealed class Token(long number)
{
    public long Number { get; } = number;

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
