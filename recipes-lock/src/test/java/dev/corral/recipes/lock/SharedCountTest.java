package dev.corral.recipes.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.recipes.shared.SharedCount;
import dev.corral.recipes.shared.SharedCountReader;
import dev.corral.recipes.shared.VersionedValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Curator's SharedCount: one integer in a node, read, watched and set by every process. */
class SharedCountTest extends ServerTest {
  private final List<SharedCount> started = new ArrayList<>();

  @AfterEach
  void closeCounts() {
    started.forEach(SharedCount::close);
  }

  private SharedCount start(int seed) throws Exception {
    SharedCount count = new SharedCount(clients.newClient(), path, seed);
    count.start();
    started.add(count);
    return count;
  }

  /** Every count heard, in order. */
  private static BlockingQueue<Integer> heard(SharedCountReader count) {
    BlockingQueue<Integer> heard = new LinkedBlockingQueue<>();
    count.addListener((changed, newCount) -> heard.add(newCount));
    return heard;
  }

  @Test
  void theFirstStartWritesTheSeedAsFourBytesAndLaterStartsReadTheCount() throws Exception {
    SharedCount first = start(5);
    assertEquals(5, first.getCount());
    assertArrayEquals(new byte[] {0, 0, 0, 5}, clients.newClient().getData(path).data(), "as Curator stores it");

    SharedCount second = start(99);

    assertEquals(5, second.getCount(), "the seed of a later start is not written");
  }

  @Test
  void aCountSetAnywhereIsHeardByEveryListenerIncludingTheSettersOwn() throws Exception {
    SharedCount setter = start(0);
    SharedCount reader = start(0);
    BlockingQueue<Integer> readerHeard = heard(reader);
    BlockingQueue<Integer> setterHeard = heard(setter);

    setter.setCount(7);

    assertEquals(7, setter.getCount());
    assertEquals(7, readerHeard.poll(seconds(PATIENCE), TimeUnit.SECONDS));
    assertEquals(7, reader.getCount());
    assertEquals(7, setterHeard.poll(seconds(PATIENCE), TimeUnit.SECONDS), "told once, as Curator tells it");
    setter.setCount(8);
    assertEquals(8, readerHeard.poll(seconds(PATIENCE), TimeUnit.SECONDS));
  }

  @Test
  void trySetCountSetsOnlyFromTheLatestValue() throws Exception {
    SharedCount count = start(1);
    VersionedValue<Integer> read = count.getVersionedValue();
    clients.newClient().setData(path, new byte[] {0, 0, 0, 42}); // another process sets it meanwhile

    assertFalse(count.trySetCount(read, 2), "set since it was read");
    await().atMost(PATIENCE).until(() -> count.getCount() == 42);
    assertTrue(count.trySetCount(count.getVersionedValue(), 3));
    assertEquals(3, count.getCount());
    assertArrayEquals(new byte[] {0, 0, 0, 3}, clients.newClient().getData(path).data());
    assertFalse(count.trySetCount(new VersionedValue<>(read.getVersion(), 3), 4), "an old version");
  }

  @Test
  @SuppressWarnings("deprecation") // Curator's older trySetCount, which ported code calls
  void trySetCountOfANumberAloneSetsFromTheValueLastSeen() throws Exception {
    SharedCount count = start(0);

    assertTrue(count.trySetCount(1));
    assertTrue(count.trySetCount(10));

    assertEquals(10, count.getCount());
    assertArrayEquals(new byte[] {0, 0, 0, 10}, clients.newClient().getData(path).data());
  }

  @Test
  void aChangeAfterTheServerRestartedIsHeard() throws Exception {
    SharedCount count = start(1);
    BlockingQueue<Integer> heard = heard(count);
    CoordinationClient owner = clients.newClient();
    server.restart();
    assertTrue(owner.blockUntilConnected(seconds(PATIENCE), TimeUnit.SECONDS));
    owner.setData(path, new byte[] {0, 0, 0, 9});

    assertEquals(9, heard.poll(seconds(PATIENCE), TimeUnit.SECONDS));
  }

  @Test
  void aNodeThatHoldsNoCountIsRefusedAndMisuseFailsAtOnce() throws Exception {
    clients.newClient().create(path, "abc".getBytes(StandardCharsets.UTF_8),
        CreateOptions.builder(CreateMode.PERSISTENT).creatingParents().build());
    SharedCount count = new SharedCount(clients.newClient(), path, 0);
    IllegalStateException notACount = assertThrows(IllegalStateException.class, count::start);
    assertTrue(notACount.getMessage().contains(path), notACount.getMessage());

    SharedCount unstarted = new SharedCount(clients.newClient(), path + "-other", 0);
    assertThrows(IllegalStateException.class, () -> unstarted.setCount(1));
    assertThrows(IllegalArgumentException.class, () -> new SharedCount(clients.newClient(), "relative", 0));
    SharedCount closed = new SharedCount(clients.newClient(), path + "-closed", 0);
    closed.start();
    closed.close();
    closed.close(); // harmless twice
    assertThrows(IllegalStateException.class, () -> closed.setCount(1));
  }
}
