package dev.corral.server.session;

import dev.corral.proto.internal.CloseSession;
import dev.corral.proto.v1.WatchEvent;

/**
 * The stream a session is attached to, as the core sees it. Called under the
 * core's write lock (events, close) so deliveries keep the order of changes.
 */
public interface SessionSink {
  /** A watch of the session fired. */
  void event(WatchEvent event);

  /** The session ended through the log (closed by its client, or expired). */
  void sessionClosed(CloseSession.Reason reason);

  /** Another stream took over the session. */
  void moved();

  /** The token this stream attached the session with (see Txn.attachment in log.proto). */
  long attachment();

  /** This server stopped serving (it can no longer apply the log); the client should go elsewhere. */
  void serverStopped(String why);
}
