package dev.corral.client.grpc;

import dev.corral.client.CreateMode;
import dev.corral.client.NodeExistsException;
import dev.corral.testing.TestingCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Not a test: 8 synchronous writers on a 3-member in-process ensemble, for a
 * quick look at throughput. Args: writers, where (leader, follower, all, or a
 * connect string of a running ensemble), seconds.
 */
public final class QuickEnsembleThroughput {
  private QuickEnsembleThroughput() {}

  public static void main(String[] args) throws Exception {
    int writers = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    String where = args.length > 1 ? args[1] : "all";
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    if (where.contains(":")) {
      run(writers, where, where, seconds);
      return;
    }
    try (TestingCluster cluster = new TestingCluster(3)) {
      int leader = cluster.awaitLeader();
      String connect = switch (where) {
        case "leader" -> cluster.getConnectString(leader);
        case "follower" -> cluster.getConnectString((leader + 1) % 3);
        default -> cluster.getConnectString();
      };
      run(writers, where, connect, seconds);
    }
  }

  private static void run(int writers, String where, String connect, int seconds) throws Exception {
    List<CorralClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < writers; i++) {
        CorralClient c = CorralClient.builder().connectString(connect).sessionTimeout(Duration.ofSeconds(20)).build();
        clients.add(c);
        if (!c.blockUntilConnected(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("writer " + i + " opened no session at " + connect + " within 30 s");
        }
        try {
          c.create("/w" + i, new byte[1024], CreateMode.PERSISTENT);
        } catch (NodeExistsException alreadyThere) {
          // a running ensemble, written to before
        }
      }
      for (int round = 0; round < 2; round++) {
        long done = writeFor(clients, seconds);
        System.out.printf("%s, %d writers on %s: %.0f setData/s%n", round == 0 ? "warm-up" : "measured", writers,
            where, done / (double) seconds);
      }
    } finally {
      clients.forEach(CorralClient::close);
    }
  }

  /** Every client sets its own node in a loop for {@code seconds}; returns how many writes were done. */
  private static long writeFor(List<CorralClient> clients, int seconds) throws InterruptedException {
    AtomicLong done = new AtomicLong();
    AtomicReference<Exception> failure = new AtomicReference<>();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      CorralClient c = clients.get(i);
      String path = "/w" + i;
      Thread t = new Thread(() -> {
        try {
          while (System.nanoTime() < end) {
            c.setData(path, new byte[1024]);
            done.incrementAndGet();
          }
        } catch (Exception e) {
          failure.compareAndSet(null, e);
        }
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a writer failed", failure.get());
    }
    return done.get();
  }
}
