package dev.corral.client.grpc;

import com.google.common.util.concurrent.MoreExecutors;
import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connection state listeners. Each is told of every transition, in order: the
 * session publishes transitions one at a time, and each listener has a serial
 * queue of its own (the client's event queue by default).
 */
final class StateListeners {
  private static final Logger log = LoggerFactory.getLogger(StateListeners.class);

  private record Entry(ConnectionStateListener listener, Executor serial) {}

  private final List<Entry> entries = new CopyOnWriteArrayList<>();
  private final EventQueue events;
  private volatile CoordinationClient client;

  StateListeners(EventQueue events) {
    this.events = events;
  }

  void client(CoordinationClient client) {
    this.client = client;
  }

  void add(ConnectionStateListener listener, Executor executor) {
    Executor serial = executor == null ? events::execute : MoreExecutors.newSequentialExecutor(executor);
    entries.add(new Entry(listener, serial));
  }

  void remove(ConnectionStateListener listener) {
    entries.removeIf(entry -> entry.listener() == listener);
  }

  /** Tells every listener of {@code state}; called by the session in transition order. */
  void publish(ConnectionState state) {
    for (Entry entry : entries) {
      entry.serial().execute(() -> {
        try {
          entry.listener().stateChanged(client, state);
        } catch (RuntimeException e) {
          log.error("Connection state listener {} threw on {}", entry.listener(), state, e);
        }
      });
    }
  }
}
