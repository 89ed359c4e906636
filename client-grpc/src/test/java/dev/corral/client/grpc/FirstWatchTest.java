package dev.corral.client.grpc;

import static dev.corral.client.ConnectionState.RECONNECTED;
import static dev.corral.client.ConnectionState.SUSPENDED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.AddWatchMode;
import dev.corral.client.CreateMode;
import dev.corral.client.EventType;
import dev.corral.client.InvalidArgumentException;
import dev.corral.client.NoNodeException;
import dev.corral.client.WatchedEvent;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link AddWatchMode#FIRST}: a sequential node's turn, told by one event. */
class FirstWatchTest {
  private static final byte[] NONE = new byte[0];

  private TestingServer server;
  private FaultInjector faults;
  private CorralClient client;
  private CorralClient writer;

  @BeforeEach
  void start() throws Exception {
    server = new TestingServer();
    faults = new FaultInjector();
    client = CorralClient.builder().connectString(server.getConnectString())
        .sessionTimeout(Duration.ofSeconds(10)).interceptor(faults).build();
    writer = CorralClient.builder().connectString(server.getConnectString()).build();
    assertTrue(client.blockUntilConnected(30, TimeUnit.SECONDS));
    writer.create("/q", NONE, CreateMode.PERSISTENT);
  }

  @AfterEach
  void closeAll() {
    writer.close();
    client.close();
    server.close();
  }

  /** Records the events a watcher gets. */
  private static final class Recorder implements Watcher {
    final BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();

    @Override
    public void process(WatchedEvent event) {
      events.add(event);
    }

    void expect(EventType type, String path) throws InterruptedException {
      WatchedEvent event = events.poll(30, TimeUnit.SECONDS);
      if (event == null) {
        throw new AssertionError("no " + type + " within 30 s");
      }
      assertEquals(type, event.type(), event.toString());
      assertEquals(path, event.path(), event.toString());
    }
  }

  private String queued() throws Exception {
    return writer.create("/q/n-", NONE, CreateMode.PERSISTENT_SEQUENTIAL).path();
  }

  /**
   * Asserts that {@code watcher} got nothing so far: a read answered after the
   * changes comes after any event they fired (events precede the reads that show them).
   */
  private void assertQuiet(Recorder watcher) throws Exception {
    client.sync("/q");
    client.getChildren("/q");
    assertTrue(watcher.events.isEmpty(), "no event yet: " + watcher.events);
  }

  @Test
  void firesOnceEverySiblingWithALowerCounterIsGone() throws Exception {
    String first = queued();
    String second = queued();
    String third = queued();
    writer.create("/q/plain", NONE, CreateMode.PERSISTENT); // no counter: not in the queue
    Recorder watcher = new Recorder();
    client.addWatch(third, AddWatchMode.FIRST, watcher);

    writer.delete(second, -1);
    assertQuiet(watcher);
    writer.delete(first, -1);

    watcher.expect(EventType.NODE_FIRST, third);
    writer.delete(third, -1);
    assertQuiet(watcher); // one-shot: the deletion after the turn is not told
  }

  @Test
  void aNodeWhoseTurnHasComeIsToldAtOnce() throws Exception {
    String only = queued();
    Recorder watcher = new Recorder();

    client.addWatch(only, AddWatchMode.FIRST, watcher);

    watcher.expect(EventType.NODE_FIRST, only);
  }

  @Test
  void theDeletionOfTheWatchedNodeIsTold() throws Exception {
    queued();
    String waiting = queued();
    Recorder watcher = new Recorder();
    client.addWatch(waiting, AddWatchMode.FIRST, watcher);

    writer.delete(waiting, -1);

    watcher.expect(EventType.NODE_DELETED, waiting);
  }

  @Test
  void theWatchNeedsAnExistingNodeWithASequenceCounter() throws Exception {
    writer.create("/q/plain", NONE, CreateMode.PERSISTENT);
    Recorder watcher = new Recorder();

    assertThrows(NoNodeException.class, () -> client.addWatch("/q/n-0000000099", AddWatchMode.FIRST, watcher));
    InvalidArgumentException noCounter = assertThrows(InvalidArgumentException.class,
        () -> client.addWatch("/q/plain", AddWatchMode.FIRST, watcher));
    assertTrue(noCounter.getMessage().contains("sequence counter"), noCounter.getMessage());
    assertQuiet(watcher);
  }

  @Test
  void aRemovedWatchIsNotCalled() throws Exception {
    String first = queued();
    String second = queued();
    Recorder watcher = new Recorder();
    client.addWatch(second, AddWatchMode.FIRST, watcher);

    client.removeWatches(second, watcher, WatcherType.FIRST);
    writer.delete(first, -1);

    assertQuiet(watcher);
  }

  @Test
  void aTurnThatCameWhileDisconnectedIsToldAfterTheReconnect() throws Exception {
    StateRecorder states = new StateRecorder();
    client.addConnectionStateListener(states);
    String first = queued();
    String second = queued();
    Recorder watcher = new Recorder();
    client.addWatch(second, AddWatchMode.FIRST, watcher);

    faults.refuseNewStreams(true);
    faults.cutStream();
    states.awaitTail(SUSPENDED);
    writer.delete(first, -1);
    faults.refuseNewStreams(false);
    states.awaitTail(SUSPENDED, RECONNECTED);

    watcher.expect(EventType.NODE_FIRST, second);
  }
}
