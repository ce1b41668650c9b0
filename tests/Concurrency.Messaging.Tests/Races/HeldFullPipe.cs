namespace Concurrency.Messaging.Tests.Races;

/// <summary>
/// A bounded pipe of two consumers, both held inside message 0 and so every lane filled alike with 1, 2, ... until the
/// pipe refuses: full, and nothing frees room until <see cref="Release"/>. Disposing releases the consumers first, so a
/// failed test never leaves a handler waiting while the pipe stops.
/// </summary>
internal sealed class HeldFullPipe : IAsyncDisposable
{
    private readonly ManualResetEventSlim _release = new(false);
    private readonly CountdownEvent _holding = new(2);
    private long _handled; // Interlocked: both consumers count

    private HeldFullPipe(string name)
    {
        (Kind, var options) = RaceKinds.Parse(name);
        Pipe = Concurrency.Messaging.Pipes.Pipe.Create<long>(Kind, [Hold, Hold], options);
    }

    public PipeKind Kind { get; }

    public IPipe<long> Pipe { get; }

    /// <summary>Gets the first message the full pipe refused: 1 to Next - 1 wait in it.</summary>
    public long Next { get; private set; } = 1;

    /// <summary>Gets how many messages the consumers handled, all lanes together.</summary>
    public long Handled => Interlocked.Read(ref _handled);

    /// <summary>Creates the pipe of the race kind <paramref name="name"/> (see <see cref="RaceKinds.Parse"/>), holds its consumers, and fills it.</summary>
    public static async Task<HeldFullPipe> FillAsync(string name)
    {
        var held = new HeldFullPipe(name);
        try
        {
            held.Pipe.Post(0, TestContext.Current.CancellationToken);
            Assert.True(held._holding.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken));
            while (held.Pipe.TryPost(held.Next))
            {
                held.Next++;
            }

            return held;
        }
        catch
        {
            await held.DisposeAsync();
            throw;
        }
    }

    /// <summary>Lets the held consumers go on.</summary>
    public void Release() => _release.Set();

    public async ValueTask DisposeAsync()
    {
        _release.Set();
        await Pipe.DisposeAsync();
        _release.Dispose();
        _holding.Dispose();
    }

    private void Hold(long message)
    {
        if (message == 0)
        {
            _holding.Signal();
            Assert.True(_release.Wait(TestTimeouts.Default));
        }

        Interlocked.Increment(ref _handled);
    }
}
