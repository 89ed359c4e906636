package dev.corral.client.grpc;

import static org.awaitility.Awaitility.await;

import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every connection state a client reports, in order. */
final class StateRecorder implements ConnectionStateListener {
  static final Duration WAIT = Duration.ofSeconds(30);

  private final List<ConnectionState> states = new CopyOnWriteArrayList<>();

  @Override
  public void stateChanged(CoordinationClient client, ConnectionState newState) {
    states.add(newState);
  }

  List<ConnectionState> states() {
    return List.copyOf(states);
  }

  /** Waits until {@code state} was reported more than {@code times - 1} times. */
  void awaitCount(ConnectionState state, int times) {
    await().atMost(WAIT).until(() -> states.stream().filter(s -> s == state).count() >= times);
  }

  /** Waits until the states reported end with {@code tail}. */
  void awaitTail(ConnectionState... tail) {
    await().atMost(WAIT).until(() -> {
      List<ConnectionState> now = states();
      return now.size() >= tail.length && now.subList(now.size() - tail.length, now.size()).equals(List.of(tail));
    });
  }
}
