namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Answers one request on a <see cref="PeerServer"/>. Called for each request of a session one at a time, in sequence
/// order, and at most once per sequence number while the server runs (resends after a reconnect are answered from the
/// server's memory of the reply). A handler that throws fails that request's caller with a
/// <see cref="PeerRemoteException"/>; the stream and the other requests go on.
/// </summary>
/// <param name="request">The request.</param>
/// <param name="cancellationToken">Fires when the server is stopping.</param>
/// <returns>The reply sent back to the caller.</returns>
public delegate ValueTask<PeerMessage> PeerHandler(PeerMessage request, CancellationToken cancellationToken);
