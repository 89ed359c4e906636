package dev.corral.recipes.election;

import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Events recorded in order, for asserting sequences. */
final class EventLog {
  private final List<String> events = new CopyOnWriteArrayList<>();

  void add(String event) {
    events.add(event);
  }

  List<String> events() {
    return List.copyOf(events);
  }

  /** Waits until the log holds {@code expected} as a prefix-free exact sequence. */
  void awaitEvents(String... expected) {
    await().atMost(Clients.WAIT).until(() -> events().equals(List.of(expected)));
  }

  /** Waits until {@code event} was recorded at least {@code times} times. */
  void awaitCount(String event, int times) {
    await().atMost(Clients.WAIT).until(() -> events().stream().filter(event::equals).count() >= times);
  }

  /** A latch listener recording "isLeader" and "notLeader". */
  LeaderLatchListener latchListener() {
    return new LeaderLatchListener() {
      @Override
      public void isLeader() {
        add("isLeader");
      }

      @Override
      public void notLeader() {
        add("notLeader");
      }
    };
  }
}
