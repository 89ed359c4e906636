package dev.corral.client.grpc;

import com.google.protobuf.ByteString;
import dev.corral.proto.v1.CloseSessionRequest;
import dev.corral.proto.v1.Connect;
import dev.corral.proto.v1.Connected;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.WatchEvent;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session the client gave up on by its own clock (declared LOST without the
 * server saying so). A server that was merely down restores such a session with
 * a fresh timeout, so its ephemeral nodes would linger for another whole timeout:
 * {@link #close} re-attaches it over a short-lived stream of its own and sends
 * CloseSession, once, best effort. Nothing of it reaches the application (the
 * session was already reported LOST): its events are ignored, failures are only
 * logged, and the stream ends after the answer.
 */
final class AbandonedSession implements SessionStream.Listener {
  private static final Logger log = LoggerFactory.getLogger(AbandonedSession.class);

  private final long sessionId;
  private final ByteString password;
  private volatile SessionStream stream;
  private volatile boolean closed;

  AbandonedSession(long sessionId, ByteString password) {
    this.sessionId = sessionId;
    this.password = password;
  }

  long sessionId() {
    return sessionId;
  }

  /** Re-attaches the session on {@code server} over {@code channel} (owned from now on) and closes it; gives up after {@code patience}. */
  void close(ServerList.Address server, ManagedChannel channel, LongSupplier nanoClock,
      ScheduledExecutorService scheduler, Duration patience) {
    log.info("Closing abandoned session 0x{} on {}", Long.toHexString(sessionId), server);
    SessionStream s = new SessionStream(server, channel, this, nanoClock);
    stream = s;
    // last_zxid_seen 0: the close goes through the log, so a server behind this client is fine
    s.start(Connect.newBuilder().setSessionId(sessionId).setPassword(password).build());
    scheduler.schedule(() -> s.cancel("no answer to closing the abandoned session within "
        + patience.toMillis() + " ms"), patience.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Ends the stream now, whatever it was doing (client close). */
  void abort() {
    SessionStream s = stream;
    if (s != null) {
      s.abort();
    }
  }

  @Override
  public void connected(SessionStream s, Connected connected) {
    Pending close = new Pending(Request.newBuilder().setCloseSession(CloseSessionRequest.getDefaultInstance())
        .build(), response -> { }, Delivery.DIRECT);
    if (!s.send(close)) {
      log.info("Could not ask to close abandoned session 0x{}: the stream ended", Long.toHexString(sessionId));
    }
  }

  @Override
  public void answered(SessionStream s, Pending pending, Response response) {
    if (response.hasError()) {
      log.info("Closing abandoned session 0x{} failed: {} {}", Long.toHexString(sessionId),
          response.getError().getCode(), response.getError().getMessage());
    } else {
      closed = true;
      log.info("Abandoned session 0x{} closed", Long.toHexString(sessionId));
    }
    s.abort();
  }

  @Override
  public void event(SessionStream s, WatchEvent event) {
    // the session's watches are the new session's business now
  }

  @Override
  public void ended(SessionStream s, Error fatal, Throwable cause, List<Pending> unanswered) {
    s.shutdown();
    if (closed) {
      return;
    }
    if (fatal != null && fatal.getCode() == ErrorCode.SESSION_EXPIRED) {
      log.info("Abandoned session 0x{} is already gone: {}", Long.toHexString(sessionId), fatal.getMessage());
    } else {
      log.info("Could not close abandoned session 0x{}: {}", Long.toHexString(sessionId),
          fatal != null ? fatal.getCode() + " " + fatal.getMessage() : String.valueOf(cause));
    }
  }
}
