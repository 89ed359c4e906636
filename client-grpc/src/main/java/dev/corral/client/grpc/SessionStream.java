package dev.corral.client.grpc;

import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.Connect;
import dev.corral.proto.v1.Connected;
import dev.corral.proto.v1.CoordinationGrpc;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.proto.v1.WatchEvent;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.function.LongSupplier;

/**
 * One attempt at the session stream, over a channel of its own: sends the
 * handshake and requests (numbering them), matches answers to requests in order
 * and hands everything else to its {@link Listener}. Ends once, for whatever reason.
 */
final class SessionStream implements ClientResponseObserver<ClientMessage, ServerMessage> {
  /** What the stream tells its session. Calls for one stream come one at a time. */
  interface Listener {
    void connected(SessionStream stream, Connected connected);

    void answered(SessionStream stream, Pending pending, Response response);

    void event(SessionStream stream, WatchEvent event);

    /** The stream ended: {@code fatal} if the server said why, {@code cause} if gRPC did; {@code unanswered} in order. */
    void ended(SessionStream stream, Error fatal, Throwable cause, List<Pending> unanswered);
  }

  private final ServerList.Address server;
  private final ManagedChannel channel;
  private final Listener listener;
  private final LongSupplier nanoClock;
  private final ArrayDeque<Pending> inflight = new ArrayDeque<>();
  private ClientCallStreamObserver<ClientMessage> out;
  private long lastXid;
  private boolean ended; // guarded by this
  private volatile Error fatal;
  private volatile long lastHeardNanos;
  private volatile ScheduledFuture<?> heartbeat;

  /** A stream over {@code channel}, which it owns from now on; not yet started. */
  SessionStream(ServerList.Address server, ManagedChannel channel, Listener listener, LongSupplier nanoClock) {
    this.server = server;
    this.channel = channel;
    this.listener = listener;
    this.nanoClock = nanoClock;
    this.lastHeardNanos = nanoClock.getAsLong();
  }

  /** Opens the call and sends the handshake. */
  void start(Connect connect) {
    CoordinationGrpc.newStub(channel).session(this);
    synchronized (this) {
      if (!ended) {
        try {
          out.onNext(ClientMessage.newBuilder().setConnect(connect).build());
        } catch (RuntimeException callAlreadyClosed) {
          // the end is reported through onError
        }
      }
    }
  }

  ServerList.Address server() {
    return server;
  }

  long lastHeardNanos() {
    return lastHeardNanos;
  }

  void heartbeat(ScheduledFuture<?> heartbeat) {
    this.heartbeat = heartbeat;
  }

  /** Numbers and sends {@code pending}; false if the stream has ended. */
  synchronized boolean send(Pending pending) {
    if (ended) {
      return false;
    }
    pending.xid(++lastXid);
    inflight.add(pending);
    try {
      out.onNext(ClientMessage.newBuilder().setRequest(pending.request().toBuilder().setXid(lastXid)).build());
    } catch (RuntimeException e) {
      inflight.removeLast();
      return false;
    }
    return true;
  }

  /** Breaks the stream from this side; the listener hears {@link Listener#ended} as for any end. */
  void cancel(String reason) {
    synchronized (this) {
      if (ended) {
        return;
      }
    }
    out.cancel(reason, null);
  }

  /**
   * Ends the stream now without telling the listener (client close): half-closes
   * it, shuts the channel and returns the requests left unanswered.
   */
  List<Pending> abort() {
    List<Pending> unanswered;
    synchronized (this) {
      unanswered = endLocked();
      if (unanswered == null) {
        return List.of();
      }
      try {
        out.onCompleted();
      } catch (RuntimeException alreadyClosed) {
        // the call ended meanwhile
      }
    }
    shutdown();
    return unanswered;
  }

  /** Stops heartbeats and shuts the channel down. */
  void shutdown() {
    ScheduledFuture<?> beat = heartbeat;
    if (beat != null) {
      beat.cancel(false);
    }
    channel.shutdownNow();
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<ClientMessage> requestStream) {
    out = requestStream;
  }

  @Override
  public void onNext(ServerMessage message) {
    lastHeardNanos = nanoClock.getAsLong();
    switch (message.getKindCase()) {
      case CONNECTED -> listener.connected(this, message.getConnected());
      case RESPONSE -> answered(message.getResponse());
      case EVENT -> listener.event(this, message.getEvent());
      case FATAL -> fatal = message.getFatal();
      default -> cancel("the server sent a message of unknown kind " + message.getKindCase());
    }
  }

  private void answered(Response response) {
    Pending pending;
    synchronized (this) {
      pending = inflight.peek();
      if (pending != null && pending.xid() == response.getXid()) {
        inflight.poll();
      } else {
        pending = null;
      }
    }
    if (pending == null) {
      cancel("the server answered xid " + response.getXid() + " out of order");
      return;
    }
    listener.answered(this, pending, response);
  }

  @Override
  public void onError(Throwable t) {
    end(t);
  }

  @Override
  public void onCompleted() {
    end(Status.UNAVAILABLE.withDescription("the server ended the stream").asRuntimeException());
  }

  private void end(Throwable cause) {
    List<Pending> unanswered;
    synchronized (this) {
      unanswered = endLocked();
    }
    if (unanswered != null) {
      listener.ended(this, fatal, cause, unanswered);
    }
  }

  /** Marks the end; the unanswered requests, or null if it had already ended. */
  private List<Pending> endLocked() {
    if (ended) {
      return null;
    }
    ended = true;
    List<Pending> unanswered = new ArrayList<>(inflight);
    inflight.clear();
    return unanswered;
  }

  @Override
  public String toString() {
    return "stream to " + server;
  }
}
