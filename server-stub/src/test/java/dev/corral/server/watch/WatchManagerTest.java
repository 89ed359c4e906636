package dev.corral.server.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.v1.EventType;
import dev.corral.proto.v1.WatchEvent;
import dev.corral.proto.v1.WatcherType;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WatchManagerTest {
  private final WatchManager watches = new WatchManager();

  @Test
  void watchAddedWhileOtherSessionsRemoveTheirOwnOnThePathIsKept() throws Exception {
    int sessions = 4;
    int rounds = 100_000;
    CyclicBarrier start = new CyclicBarrier(sessions);
    ExecutorService threads = Executors.newFixedThreadPool(sessions);
    try {
      List<Future<Integer>> lost = new ArrayList<>();
      for (long s = 1; s <= sessions; s++) {
        long session = s;
        lost.add(threads.submit(() -> {
          start.await(30, TimeUnit.SECONDS);
          int missing = 0;
          for (int i = 0; i < rounds; i++) {
            watches.add(session, WatchKind.DATA, "/p");
            if (!watches.has(session, WatchKind.DATA, "/p")) {
              missing++;
            }
            watches.remove(session, "/p", WatcherType.DATA);
          }
          return missing;
        }));
      }
      for (Future<Integer> f : lost) {
        assertEquals(0, f.get(60, TimeUnit.SECONDS), "watches lost right after they were added");
      }
    } finally {
      threads.shutdownNow();
    }
    assertEquals(0, watches.size());
  }

  @Test
  void sessionHearsOneEventWhenSeveralOfItsWatchesMatch() {
    watches.add(1, WatchKind.DATA, "/a");
    watches.add(1, WatchKind.CHILD, "/a");
    watches.add(1, WatchKind.PERSISTENT, "/a");
    watches.add(1, WatchKind.PERSISTENT_RECURSIVE, "/");
    assertEquals(Set.of(1L), watches.trigger(event(EventType.NODE_DELETED, "/a")));
    assertTrue(watches.has(1, WatchKind.PERSISTENT, "/a"), "persistent watches stay");
    assertEquals(2, watches.size(), "the one-shot watches were used up");
  }

  @Test
  void recursiveWatchesHearTheirPathAndWhatIsBelowItUntilRemoved() {
    watches.add(1, WatchKind.PERSISTENT_RECURSIVE, "/");
    watches.add(2, WatchKind.PERSISTENT_RECURSIVE, "/a");
    watches.add(3, WatchKind.PERSISTENT_RECURSIVE, "/a/b/c");
    watches.add(4, WatchKind.PERSISTENT_RECURSIVE, "/ab");
    watches.add(5, WatchKind.PERSISTENT_RECURSIVE, "/a/b/c/d");

    assertEquals(Set.of(1L, 2L, 3L), watches.trigger(event("/a/b/c")));
    assertEquals(Set.of(1L, 4L), watches.trigger(event("/ab/x")), "a sibling sharing the prefix");
    assertEquals(Set.of(1L), watches.trigger(event("/")));
    assertTrue(watches.triggerFor(3, event("/a/b/c/d/e")));
    assertFalse(watches.triggerFor(3, event("/a/b")), "above the watched path");

    watches.remove(2, "/a", WatcherType.PERSISTENT_RECURSIVE_WATCH);
    watches.removeSession(1);
    assertEquals(Set.of(3L, 5L), watches.trigger(event("/a/b/c/d")));
    watches.removeSession(3);
    watches.removeSession(5);
    assertEquals(Set.of(), watches.trigger(event("/a/b/c/d")));
    assertFalse(watches.triggerFor(5, event("/a/b/c/d")));
  }

  @Test
  void recursiveWatchOnEveryAncestorOfADeepPathHearsItsEvents() {
    StringBuilder path = new StringBuilder();
    for (long depth = 1; depth <= 2000; depth++) {
      path.append("/d");
      watches.add(depth, WatchKind.PERSISTENT_RECURSIVE, path.toString());
    }

    assertEquals(2000, watches.trigger(event(path + "/leaf")).size());
    assertEquals(1000, watches.trigger(event("/d".repeat(1000))).size());
  }

  @Test
  void aRecursiveWatchOnAPathAMillionSegmentsDeepHoldsLittleBeyondThePath() {
    String deep = "/d" + "/a".repeat(1_000_000); // 2 MB, within a request's size
    long before = heapUsedAfterGc();
    watches.add(1, WatchKind.PERSISTENT_RECURSIVE, deep);
    long held = heapUsedAfterGc() - before;

    // a map per segment held about 300 MB here; the path itself is 2 MB
    assertTrue(held < 64L * 1024 * 1024, "the watch holds " + held + " bytes");
    assertEquals(Set.of(1L), watches.trigger(event(deep + "/leaf")));
    assertEquals(Set.of(), watches.trigger(event(deep.substring(0, deep.length() - 2))));
  }

  private static long heapUsedAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  @Test
  void aRecursiveWatchAddedAsItsSessionEndsIsGoneOnceTheSessionEndsForGood() throws Exception {
    ExecutorService adder = Executors.newSingleThreadExecutor();
    try {
      for (int i = 0; i < 20_000; i++) {
        WatchManager fresh = new WatchManager();
        CyclicBarrier start = new CyclicBarrier(2);
        Future<?> added = adder.submit(() -> {
          start.await(30, TimeUnit.SECONDS);
          fresh.add(7, WatchKind.PERSISTENT_RECURSIVE, "/a");
          return null;
        });
        start.await(30, TimeUnit.SECONDS);
        fresh.removeSession(7); // as the add runs: it may see none of it, or part
        added.get(30, TimeUnit.SECONDS);
        fresh.removeSession(7); // the session ends for good

        assertEquals(Set.of(), fresh.trigger(event("/a/b")), "round " + i);
        assertEquals(0, fresh.size());
      }
    } finally {
      adder.shutdownNow();
    }
  }

  private static WatchEvent event(String path) {
    return event(EventType.NODE_CREATED, path);
  }

  private static WatchEvent event(EventType type, String path) {
    return WatchEvent.newBuilder().setType(type).setPath(path).setZxid(7).build();
  }

  @Test
  void firstWatchesAreFoundByTheirNodesParentOnly() {
    watches.add(1, WatchKind.FIRST, "/q/n-0000000002");
    watches.add(2, WatchKind.FIRST, "/top-0000000001");
    watches.add(3, WatchKind.DATA, "/r/n-0000000001");

    assertTrue(watches.firstWatchesOnChildrenOf("/q"));
    assertTrue(watches.firstWatchesOnChildrenOf("/"));
    assertFalse(watches.firstWatchesOnChildrenOf("/r"), "a data watch is not a FIRST watch");
    assertFalse(watches.firstWatchesOnChildrenOf("/q/n-0000000002"), "no child of the watched node");
    assertFalse(watches.firstWatchesOnChildrenOf("/qa"), "a sibling path sharing the prefix");
    watches.add(4, WatchKind.FIRST, "/a/b/n-0000000001");
    assertFalse(watches.firstWatchesOnChildrenOf("/a"), "a grandchild is not a child");

    watches.removeSession(1);
    assertFalse(watches.firstWatchesOnChildrenOf("/q"));
  }
}
